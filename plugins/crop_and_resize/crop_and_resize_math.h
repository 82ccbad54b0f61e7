// CropAndResize's arithmetic for one output element, shared by the host kernel and the CUDA kernel: TensorFlow's
// crop_and_resize (bilinear, boxes normalized to [0, 1], extrapolation value 0).
#pragma once

#include "device_common/host_device.h"

#include <cmath>
#include <cstdint>

namespace kiln::plugins::crop_and_resize
{

//! Where crop row (or column) `i` of `count` samples the input axis of `size` pixels, for a box edge pair lo..hi.
KILN_HOST_DEVICE inline float sourceCoordinate(float lo, float hi, int32_t size, int32_t i, int32_t count)
{
    float const span = static_cast<float>(size - 1);
    if (count > 1)
    {
        return lo * span + static_cast<float>(i) * (hi - lo) * span / static_cast<float>(count - 1);
    }
    return 0.5F * (lo + hi) * span; // one sample: the box's centre
}

//! Crop element (y, x) of `box` (y1, x1, y2, x2, normalized) on the H x W plane `load` reads; 0 outside the plane.
template <typename Load>
KILN_HOST_DEVICE float cropValue(Load const& load, int32_t height, int32_t width, float const box[4],
    int32_t cropHeight, int32_t cropWidth, int32_t y, int32_t x)
{
    float const inY = sourceCoordinate(box[0], box[2], height, y, cropHeight);
    float const inX = sourceCoordinate(box[1], box[3], width, x, cropWidth);
    if (inY < 0.F || inY > static_cast<float>(height - 1) || inX < 0.F || inX > static_cast<float>(width - 1))
    {
        return 0.F;
    }
    auto const top = static_cast<int32_t>(floorf(inY));
    auto const bottom = static_cast<int32_t>(ceilf(inY));
    auto const left = static_cast<int32_t>(floorf(inX));
    auto const right = static_cast<int32_t>(ceilf(inX));
    float const yLerp = inY - static_cast<float>(top);
    float const xLerp = inX - static_cast<float>(left);
    float const topLeft = load(top * width + left);
    float const topRight = load(top * width + right);
    float const bottomLeft = load(bottom * width + left);
    float const bottomRight = load(bottom * width + right);
    float const upper = topLeft + (topRight - topLeft) * xLerp;
    float const lower = bottomLeft + (bottomRight - bottomLeft) * xLerp;
    return upper + (lower - upper) * yLerp;
}

} // namespace kiln::plugins::crop_and_resize
