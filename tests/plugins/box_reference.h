// Plain box arithmetic for the NMS plugins' brute-force references, written the most direct way.
#pragma once

#include <algorithm>

namespace kiln::test
{

//! IoU of two corner boxes (x1, y1, x2, y2) given min-first.
inline float plainIou(float const* a, float const* b)
{
    float const w = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    float const h = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (w <= 0.F || h <= 0.F)
    {
        return 0.F;
    }
    float const inter = w * h;
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

} // namespace kiln::test
