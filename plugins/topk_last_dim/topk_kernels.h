// The CUDA side of TopkLastDim (topk_kernels.cu).
#pragma once

#include "topk_keys.h"

#include <NvInferRuntimeBase.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace kiln::plugins
{

size_t topkWorkspaceSize(TopkShape const& shape);

//! values/indices [outer, k, inner] from input [outer, length, inner] of `type` (FP32, FP16, BF16 or INT32).
cudaError_t launchTopk(TopkShape const& shape, nvinfer1::DataType type, void const* input, void* values,
    int32_t* indices, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins
