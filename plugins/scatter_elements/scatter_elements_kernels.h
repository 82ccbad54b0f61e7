// The CUDA side of ScatterElements (scatter_elements_kernels.cu).
#pragma once

#include "scatter_elements_math.h"

#include <NvInferRuntimeBase.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! output = data, then each update combined into the element its index names along the axis. data, updates and
//! output are `type` (FP32, FP16, BF16, INT32 or INT64); indices INT64 (INT32 where not `wideIndices`). An update
//! whose index is out of range is skipped (a kernel cannot report it). Reductions are atomic; several updates of one
//! element combine in any order, and with kNONE either update may win. Returns the first failing call's status.
cudaError_t launchScatterElements(scatter_elements::Geometry const& geometry, scatter_elements::Reduction reduction,
    nvinfer1::DataType type, int64_t dataCount, int64_t updateCount, void const* data, void const* indices,
    bool wideIndices, void const* updates, void* output, cudaStream_t stream);

} // namespace kiln::plugins
