// IPoolingLayer on the GPU, as the CPU reference (backend/cpu/kernels/nn/pooling.h): N-d windows over the
// last windowSize.size() axes, strides, explicit and SAME padding modes, max / average / max-average blend.
#pragma once

#include "backend/cpu/kernels/nn/pooling.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! Same parameters and rules as cpu::runPooling (FP32/FP16/BF16; NaN propagates through max and average; a window
//! over padding only gives 0). Throws std::invalid_argument for inconsistent parameters or shapes.
void poolingOnDevice(network::PoolingParams const& params, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
