// The launch shape of the collection's grid-stride kernels: blocks of kGridThreads threads, enough blocks for
// `count` elements, capped so huge tensors loop inside the kernel instead of overflowing the grid.
#pragma once

#include <algorithm>
#include <cstdint>

namespace kiln::plugins
{

constexpr unsigned kGridThreads = 256;

inline unsigned gridBlocks(int64_t count)
{
    return static_cast<unsigned>(std::clamp<int64_t>((count + kGridThreads - 1) / kGridThreads, 1, 65535 * 8));
}

} // namespace kiln::plugins
