// One output element of multi-scale deformable attention, shared by the host kernel and the CUDA kernel.
#pragma once

#include "ms_deform_attn_params.h"

#include "common/bilinear_sample.h"

namespace kiln::plugins
{

//! out[n, q, m, d] = sum over levels l and points p of attention_weights[n, q, m, l, p] times value's level l map
//! (head m, channel d) sampled bilinearly at sampling_locations[n, q, m, l, p] = (x, y) in [0, 1], as grid_sample
//! with align_corners false and zeros outside: pixel coordinates x * W - 0.5, y * H - 0.5. A level whose pixels
//! would reach past value's S contributes nothing.
template <typename T>
KILN_HOST_DEVICE inline float msDeformAttnElement(MsDeformAttnShape const& s, T const* value,
    int32_t const* spatialShapes, int32_t const* levelStart, T const* locations, T const* weights, int64_t n, int64_t q,
    int64_t m, int64_t d)
{
    int64_t const pixelStride = s.heads * s.channels;
    int64_t const sampleAt = ((n * s.queries + q) * s.heads + m) * s.levels * s.points;
    float sum = 0.F;
    for (int64_t l = 0; l < s.levels; ++l)
    {
        int64_t const height = spatialShapes[2 * l];
        int64_t const width = spatialShapes[2 * l + 1];
        int64_t const start = levelStart[l];
        if (height < 0 || width < 0 || start < 0 || start + height * width > s.valueLength)
        {
            continue;
        }
        T const* map = value + ((n * s.valueLength + start) * s.heads + m) * s.channels + d;
        for (int64_t p = 0; p < s.points; ++p)
        {
            int64_t const at = sampleAt + l * s.points + p;
            float const x = static_cast<float>(locations[2 * at]) * static_cast<float>(width) - 0.5F;
            float const y = static_cast<float>(locations[2 * at + 1]) * static_cast<float>(height) - 0.5F;
            sum += static_cast<float>(weights[at]) * sampleBilinear(map, height, width, pixelStride, y, x);
        }
    }
    return sum;
}

} // namespace kiln::plugins
