// Reorg_TRT's index map, shared by the host kernel and the CUDA kernel.
#pragma once

#include "device_common/host_device.h"

#include <cstdint>

namespace kiln::plugins
{

//! Where reorg reads output element `index` of one sample from (the index counted through the input's shape
//! [c, h, w], as darknet counts it). Darknet's reorg addresses the input as if it had shape [c / s^2, h * s, w * s],
//! which is what YOLOv2's weights expect, so this is not a plain space-to-depth.
inline KILN_HOST_DEVICE int64_t reorgSource(int64_t index, int64_t c, int64_t h, int64_t w, int64_t s)
{
    int64_t const x = index % w;
    int64_t const y = (index / w) % h;
    int64_t const k = index / (w * h);
    int64_t const groupChannels = c / (s * s);
    int64_t const channel = k % groupChannels;
    int64_t const offset = k / groupChannels;
    int64_t const column = x * s + offset % s;
    int64_t const row = y * s + offset / s;
    return column + w * s * (row + h * s * channel);
}

} // namespace kiln::plugins
