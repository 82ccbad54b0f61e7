// DeBERTa's relative-position index with log buckets, shared by the host and CUDA kernels of
// DisentangledAttention_TRT so that both pick the same column.
#pragma once

#include <math.h>
#include <stdint.h>

#include "device_common/host_device.h"

namespace kiln::plugins
{

//! The column of a [.., 2 span]-wide relative attention matrix for relative distance `r` (row minus column): `r`
//! itself within mid = span / 2 of the diagonal, a logarithmic bucket beyond (DeBERTa V2), plus span, clamped to
//! [0, 2 span - 1]. `width` is the relative matrices' width (2 span), which the buckets' scale uses.
KILN_HOST_DEVICE inline int32_t relativeColumn(int32_t r, int32_t span, int32_t width)
{
    int32_t const mid = span / 2;
    int32_t bucket = r;
    if ((r < -mid || r > mid) && mid > 0) // span 1 has no bucket region: its distances clamp to the two ends
    {
        float const logMid = logf(static_cast<float>(mid));
        // (1 - 1e-7) keeps a ratio that is an integer in exact arithmetic from rounding up past it in float.
        float const scale
            = static_cast<float>(mid - 1) / (logf(static_cast<float>(width - 1)) - logMid) * (1.F - 1e-7F);
        int32_t const magnitude
            = static_cast<int32_t>(ceilf((logf(fabsf(static_cast<float>(r))) - logMid) * scale)) + mid;
        bucket = r < 0 ? -magnitude : magnitude;
    }
    int32_t const column = bucket + span;
    return column < 0 ? 0 : (column > 2 * span - 1 ? 2 * span - 1 : column);
}

} // namespace kiln::plugins
