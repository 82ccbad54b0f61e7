#include "backend/shared/channel_order.h"

#include <algorithm>
#include <cstring>

namespace kiln::backend
{

namespace
{

//! transposeStrided for elements of kBytes each, in square tiles: a tile's rows and columns both stay in the cache
//! while it is copied, where walking whole rows of the input writes a new cache line of the output for every element
//! of a long row. The element size known at compile time makes each copy one move; other sizes copy kBytes = 0's
//! run-time `elementBytes`.
template <size_t kBytes>
void transposeTiles(std::byte const* from, int64_t fromRowStride, std::byte* to, int64_t toRowStride, int64_t rows,
    int64_t columns, size_t elementBytes)
{
    auto const bytes = static_cast<int64_t>(kBytes > 0 ? kBytes : elementBytes);
    constexpr int64_t kTile = 32;
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
                    std::memcpy(to + (c * toRowStride + r) * bytes, from + (r * fromRowStride + c) * bytes,
                        kBytes > 0 ? kBytes : elementBytes);
                }
            }
        }
    }
}

} // namespace

void transposeStrided(void const* input, int64_t inputRowStride, void* output, int64_t outputRowStride, int64_t rows,
    int64_t columns, size_t elementBytes)
{
    auto const* from = static_cast<std::byte const*>(input);
    auto* to = static_cast<std::byte*>(output);
    switch (elementBytes)
    {
    case 1: transposeTiles<1>(from, inputRowStride, to, outputRowStride, rows, columns, elementBytes); return;
    case 2: transposeTiles<2>(from, inputRowStride, to, outputRowStride, rows, columns, elementBytes); return;
    case 4: transposeTiles<4>(from, inputRowStride, to, outputRowStride, rows, columns, elementBytes); return;
    case 8: transposeTiles<8>(from, inputRowStride, to, outputRowStride, rows, columns, elementBytes); return;
    default: transposeTiles<0>(from, inputRowStride, to, outputRowStride, rows, columns, elementBytes); return;
    }
}

void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes)
{
    auto const matrixBytes = static_cast<size_t>(rows * columns) * elementBytes;
    for (int64_t b = 0; b < batches; ++b)
    {
        transposeStrided(static_cast<std::byte const*>(input) + b * matrixBytes, columns,
            static_cast<std::byte*>(output) + b * matrixBytes, rows, rows, columns, elementBytes);
    }
}

} // namespace kiln::backend
