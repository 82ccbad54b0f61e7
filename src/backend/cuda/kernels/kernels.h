// Kiln's own CUDA kernels for built-in layers. Each queues its work on `stream` and
// returns at once; the views describe device memory. They throw std::invalid_argument
// for types or shapes they do not take, before anything is queued.
#pragma once

#include "backend/cuda/device_layer.h"
#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace kiln::cuda
{

//! Copies `bytes` from `from` to `to` (device memory, not overlapping) with one kernel, in stream order.
void copyOnDevice(void* to, void const* from, size_t bytes, cudaStream_t stream);

//! Converts between FP32, FP16, BF16, INT8, UINT8, INT32, INT64 and BOOL with the CPU reference's rules
//! (backend/cpu/kernels/tensor/cast.h); the same type on both sides is a copy.
void castOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

//! IElementWiseLayer with numpy-style broadcasting of extents of 1, as the CPU reference computes it
//! (backend/cpu/kernels/nn/element_wise.h); with `relu`, a ReLU follows an arithmetic operation (a NaN stays NaN, as
//! on the CPU reference), as a fused convolution's residual needs. The output may be the first input. Floating-point
//! arithmetic runs as a one-step point-wise chain (pointwise_kernel.h): same-shape operands in groups of four, a single
//! element read once, index arithmetic only for true broadcasts; comparisons, logic and integers take a general kernel.
//! A layer (prepared_kernel_layer.h): it checks its tensors and makes its kernel's arguments only when their shapes or
//! addresses change, so that work run at every inference (a fused convolution's residual sum, over views the caller
//! keeps) allocates nothing.
std::unique_ptr<DeviceLayer> makeElementWiseLayer(nvinfer1::ElementWiseOperation op, bool relu);

} // namespace kiln::cuda
