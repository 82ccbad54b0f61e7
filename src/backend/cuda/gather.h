// IGatherLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/gather.h): kDEFAULT (with 0 or 1
// element-wise dims), kELEMENT and kND (with any number of element-wise dims). Indices are INT32 or INT64 and
// negative ones count from the end.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Data of any byte-addressable type. The indices are read on the device, so an index still out of range (which the
//! CPU reference rejects) cannot be reported without waiting for the GPU: its output elements are written as zero
//! bytes instead (for kND: the whole slice a tuple with such an index picks). Throws std::invalid_argument for shapes
//! the CPU reference refuses.
void gatherOnDevice(nvinfer1::GatherMode mode, int32_t axis, int32_t numElementWiseDims,
    ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    cudaStream_t stream);

} // namespace kiln::cuda
