// The CUDA side of CropAndResizeDynamic (crop_and_resize_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! crops[N, B, C, ch, cw] from features[N, C, H, W] and boxes[N, B, 4] (y1, x1, y2, x2 normalized), all FP32.
//! Returns the launch's status.
cudaError_t launchCropAndResize(int32_t batch, int32_t boxes, int32_t channels, int32_t height, int32_t width,
    int32_t cropHeight, int32_t cropWidth, float const* features, float const* rois, float* crops, cudaStream_t stream);

} // namespace kiln::plugins
