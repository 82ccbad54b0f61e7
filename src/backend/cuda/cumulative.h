// ICumulativeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/cumulative.h): a running kSUM
// along one axis, exclusive (each element left out of its own sum) and/or reverse (from the end of the axis).
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! `axis` is the layer's input 1: a 0-D INT32/INT64 tensor in device memory, negative counting from the end. The
//! builder checked its value, a build-time constant, against the rank; the kernel reads it on the device, so that
//! nothing waits for the GPU (an axis still out of range leaves the output unwritten). FP32/FP16/BF16 accumulate
//! in double and round on store; INT32/INT64 wrap. Throws std::invalid_argument for other types or operations.
void cumulativeOnDevice(nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse,
    ConstTensorView const& input, ConstTensorView const& axis, TensorView const& output,
    cudaStream_t stream);

} // namespace kiln::cuda
