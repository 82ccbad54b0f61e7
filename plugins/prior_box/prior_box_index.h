// PriorBox_TRT's box arithmetic, shared by the host kernel and the CUDA kernel.
#pragma once

#include "device_common/host_device.h"

#include <cstdint>

namespace kiln::plugins
{

//! Writes [x_min, y_min, x_max, y_max] of box `index` (cell-major, `perCell` boxes a cell) to `out`, normalized by
//! the image size; `sizes` holds each box of a cell as (width, height) in pixels.
inline KILN_HOST_DEVICE void priorBox(int64_t index, int64_t perCell, int64_t gridWidth, float const* sizes,
    float stepH, float stepW, float offset, float imageH, float imageW, bool clip, float* out)
{
    int64_t const cell = index / perCell;
    int64_t const box = index % perCell;
    float const centerX = (static_cast<float>(cell % gridWidth) + offset) * stepW;
    float const centerY = (static_cast<float>(cell / gridWidth) + offset) * stepH;
    float const halfW = sizes[2 * box] / 2.F;
    float const halfH = sizes[2 * box + 1] / 2.F;
    float const corners[4]{
        (centerX - halfW) / imageW, (centerY - halfH) / imageH, (centerX + halfW) / imageW, (centerY + halfH) / imageH};
    for (int k = 0; k < 4; ++k)
    {
        out[k] = clip ? (corners[k] < 0.F ? 0.F : (corners[k] > 1.F ? 1.F : corners[k])) : corners[k];
    }
}

} // namespace kiln::plugins
