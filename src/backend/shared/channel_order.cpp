#include "backend/shared/channel_order.h"

#include <algorithm>
#include <cstring>

namespace kiln::backend
{

namespace
{

//! transposeBatched for elements of kBytes each, in square tiles: a tile's rows and columns both stay in the cache
//! while it is copied, where walking whole rows of the input writes a new cache line of the output for every element
//! of a long row. The element size known at compile time makes each copy one move.
template <size_t kBytes>
void transposeTiles(std::byte const* from, std::byte* to, int64_t batches, int64_t rows, int64_t columns)
{
    constexpr int64_t kTile = 32;
    for (int64_t b = 0; b < batches; ++b)
    {
        int64_t const base = b * rows * columns;
        for (int64_t r0 = 0; r0 < rows; r0 += kTile)
        {
            int64_t const rowEnd = std::min(r0 + kTile, rows);
            for (int64_t c0 = 0; c0 < columns; c0 += kTile)
            {
                int64_t const columnEnd = std::min(c0 + kTile, columns);
                for (int64_t r = r0; r < rowEnd; ++r)
                {
                    for (int64_t c = c0; c < columnEnd; ++c)
                    {
                        std::memcpy(to + (base + c * rows + r) * static_cast<int64_t>(kBytes),
                            from + (base + r * columns + c) * static_cast<int64_t>(kBytes), kBytes);
                    }
                }
            }
        }
    }
}

} // namespace

void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes)
{
    auto const* from = static_cast<std::byte const*>(input);
    auto* to = static_cast<std::byte*>(output);
    switch (elementBytes)
    {
    case 1: transposeTiles<1>(from, to, batches, rows, columns); return;
    case 2: transposeTiles<2>(from, to, batches, rows, columns); return;
    case 4: transposeTiles<4>(from, to, batches, rows, columns); return;
    case 8: transposeTiles<8>(from, to, batches, rows, columns); return;
    default: break;
    }
    for (int64_t b = 0; b < batches; ++b)
    {
        int64_t const base = b * rows * columns;
        for (int64_t r = 0; r < rows; ++r)
        {
            for (int64_t c = 0; c < columns; ++c)
            {
                std::memcpy(to + (base + c * rows + r) * elementBytes, from + (base + r * columns + c) * elementBytes,
                    elementBytes);
            }
        }
    }
}

} // namespace kiln::backend
