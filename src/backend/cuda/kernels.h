// Kiln's own CUDA kernels for built-in layers. Each queues its work on `stream` and
// returns at once; the views describe device memory. They throw std::invalid_argument
// for types or shapes they do not take, before anything is queued.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! Converts between FP32, FP16, BF16, INT8, UINT8, INT32, INT64 and BOOL with the CPU reference's rules
//! (backend/cpu/kernels/tensor/cast.h); the same type on both sides is a copy.
void castOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

//! IElementWiseLayer with numpy-style broadcasting of extents of 1, as the CPU reference computes it
//! (backend/cpu/kernels/nn/element_wise.h); with `relu`, a ReLU follows an arithmetic operation (a NaN stays NaN, as
//! on the CPU reference), as a fused convolution's residual needs. The output may be the first input. Floating-point
//! arithmetic runs as a one-step point-wise chain (pointwise_kernel.h): same-shape operands in groups of four, a single
//! element read once, index arithmetic only for true broadcasts; comparisons, logic and integers take a general kernel.
void elementWiseOnDevice(nvinfer1::ElementWiseOperation op, ConstTensorView const& first, ConstTensorView const& second,
    TensorView const& output, cudaStream_t stream, bool relu = false);

} // namespace kiln::cuda
