// The CUDA side of Reorg_TRT (reorg_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! Reorg of `batch` FP32 samples of shape [c, h, w] (reorgSource in reorg_index.h). Returns the launch's status.
cudaError_t launchReorg(
    float const* x, float* y, int64_t batch, int64_t c, int64_t h, int64_t w, int64_t stride, cudaStream_t stream);

} // namespace kiln::plugins
