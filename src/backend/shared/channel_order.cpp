#include "backend/shared/channel_order.h"

#include <cstring>

namespace kiln::backend
{

void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes)
{
    auto const* from = static_cast<std::byte const*>(input);
    auto* to = static_cast<std::byte*>(output);
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
