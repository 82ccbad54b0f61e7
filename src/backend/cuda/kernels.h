// Kiln's own CUDA kernels for built-in layers. Each queues its work on `stream` and
// returns at once; the views describe device memory. They throw std::invalid_argument
// for types or shapes they do not take, before anything is queued.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::cuda
{

//! Copies `bytes` from `from` to `to` (device memory, not overlapping) with one kernel, in stream order.
void copyOnDevice(void* to, void const* from, size_t bytes, cudaStream_t stream);

//! Converts between FP32, FP16, BF16, INT8, UINT8, INT32, INT64 and BOOL with the CPU reference's rules
//! (backend/cpu/kernels/tensor/cast.h); the same type on both sides is a copy.
void castOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

//! IElementWiseLayer with numpy-style broadcasting of extents of 1, as the CPU reference computes it
//! (backend/cpu/kernels/nn/element_wise.h); with `relu`, a ReLU follows an arithmetic operation (a NaN stays NaN, as
//! on the CPU reference), as a fused convolution's residual needs. The output may be the first input. A sum of two
//! FP32 or FP16 tensors of the output's shape, the common case, runs a kernel of its own that reads FP16 in pairs.
void elementWiseOnDevice(nvinfer1::ElementWiseOperation op, ConstTensorView const& first, ConstTensorView const& second,
    TensorView const& output, cudaStream_t stream, bool relu = false);

//! output = first + second (then a ReLU with `relu`) over `count` elements of `type` stored alike, as
//! elementWiseOnDevice adds two tensors of one shape, without views (a fused convolution's residual at every run).
void sumSameShapeOnDevice(nvinfer1::DataType type, void const* first, void const* second, void* output, int64_t count,
    bool relu, cudaStream_t stream);

} // namespace kiln::cuda
