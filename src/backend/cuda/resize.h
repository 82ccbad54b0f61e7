// IResizeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/resize.h): kNEAREST with every
// rounding mode, kLINEAR and kCUBIC over every dim, each coordinate transformation, the single-pixel selector,
// the cubic coefficient and exclude-outside.
#pragma once

#include "backend/cpu/kernels/tensor/resize.h"
#include "core/tensor_view.h"
#include "network/layers/resize.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace kiln::cuda
{

//! `params` as cpu::resize takes them; hasShapeInput: whether input 1 (in device memory) gave the output shape, which
//! the executor then already resolved into the output's. kNEAREST copies any byte-addressable type; kLINEAR and
//! kCUBIC read and write FP32/FP16/BF16 and blend in double, adding in the CPU's order so that results are its own to
//! the bit. Throws std::invalid_argument for what the CPU reference refuses.
void resizeOnDevice(network::ResizeParams const& params, bool hasShapeInput, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream);


} // namespace kiln::cuda
