// Bilinear sampling with zeros outside the image, as torchvision's deform_conv2d, mmcv's DCNv2 and grid_sample
// (padding_mode "zeros", align_corners false, once the caller maps its coordinates to pixels) define it: a point
// (y, x) in pixel units, pixel centers at integers, each of the four neighbours outside the image counting as 0.
// Shared by host and CUDA code: in a .cu file the function is __host__ __device__.
#pragma once

#include <cmath>
#include <cstdint>

#include "device_common/host_device.h"

namespace kiln::plugins
{

//! The value at (y, x) of a height x width image whose pixel (h, w) is image[(h * width + w) * pixelStride].
//! T is float, or __half in device code.
template <typename T>
KILN_HOST_DEVICE inline float sampleBilinear(
    T const* image, int64_t height, int64_t width, int64_t pixelStride, float y, float x)
{
    if (!(y > -1.F && x > -1.F && y < static_cast<float>(height) && x < static_cast<float>(width)))
    {
        return 0.F; // also NaN coordinates
    }
    auto const y0 = static_cast<int64_t>(floorf(y));
    auto const x0 = static_cast<int64_t>(floorf(x));
    float const ly = y - static_cast<float>(y0);
    float const lx = x - static_cast<float>(x0);
    auto const at = [&](int64_t h, int64_t w) {
        return h >= 0 && w >= 0 && h < height && w < width ? static_cast<float>(image[(h * width + w) * pixelStride])
                                                           : 0.F;
    };
    return (1.F - ly) * ((1.F - lx) * at(y0, x0) + lx * at(y0, x0 + 1))
        + ly * ((1.F - lx) * at(y0 + 1, x0) + lx * at(y0 + 1, x0 + 1));
}

} // namespace kiln::plugins
