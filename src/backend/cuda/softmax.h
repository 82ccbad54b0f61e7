// ISoftMaxLayer on the GPU, as the CPU reference computes it (backend/cpu/kernels/nn/softmax.h).
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Softmax along the one axis that `axes` names, over FP32/FP16/BF16 tensors of one shape. Stable: exponentials are
//! taken relative to the axis maximum (NaN is skipped by the maximum, then makes the whole row NaN, as on the CPU).
void softmaxOnDevice(uint32_t axes, ConstTensorView const& input, TensorView const& output,
    cudaStream_t stream);

} // namespace kiln::cuda
