// The CUDA side of PriorBox_TRT (prior_box_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! Fills `batch` copies of [2, boxes * 4]: the boxes (priorBox in prior_box_index.h), then the variances repeated.
//! `sizes` is device memory (perCell (width, height) pairs); `variance` four host values. Returns the launch's status.
cudaError_t launchPriorBox(float* out, int64_t batch, int64_t boxes, int64_t perCell, int64_t gridWidth,
    float const* sizes, float stepH, float stepW, float offset, float imageH, float imageW, bool clip,
    float const* variance, cudaStream_t stream);

} // namespace kiln::plugins
