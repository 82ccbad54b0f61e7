// The CUDA side of ROIAlign_TRT (roi_align_kernels.cu).
#pragma once

#include "roi_align_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! y[R, C, oh, ow] = ROIAlign of x[N, C, H, W] over rois[R, 4] (x1, y1, x2, y2) of images batchIndices[R]; x, rois
//! and y FP32 (or FP16 where `half`). A ROI whose batch index lies outside [0, N) yields zeros (a kernel cannot
//! report it). Returns the launch's status.
cudaError_t launchRoiAlign(roi_align::Geometry const& geometry, int32_t batch, int64_t roiCount, void const* x,
    void const* rois, int32_t const* batchIndices, void* y, bool half, cudaStream_t stream);

} // namespace kiln::plugins
