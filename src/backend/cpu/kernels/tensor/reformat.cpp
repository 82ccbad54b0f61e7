#include "backend/cpu/kernels/tensor/reformat.h"

#include "backend/cpu/kernels/tensor/cast.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cpu
{

void transposeBatched(void const* input, void* output, int64_t batches, int64_t rows, int64_t columns,
    size_t elementBytes)
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

void reformat(ConstTensorView const& input, TensorView const& output)
{
    if (!storedFormat(input.format) || !storedFormat(output.format))
    {
        throw std::invalid_argument("reformat: Kiln stores tensors as kLINEAR or kHWC only");
    }
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("reformat: the output's shape differs from the input's");
    }
    if (input.format == output.format)
    {
        cast(input, output);
        return;
    }
    if (input.rank() < 3)
    {
        throw std::invalid_argument("reformat: kHWC needs [N, C, spatial...], but the tensor has "
            + std::to_string(input.rank()) + " axes");
    }
    if (output.count() == 0)
    {
        return;
    }
    // Convert the type first, in the input's format, then move the elements.
    std::vector<std::byte> converted;
    void const* source = input.data;
    if (input.type != output.type)
    {
        converted.resize(static_cast<size_t>(input.count()) * elementSize(output.type));
        cast(input, TensorView{output.type, input.shape, converted.data(), input.format});
        source = converted.data();
    }
    int64_t const channels = input.shape[1];
    int64_t const spatial = input.count() / (input.shape[0] * channels);
    bool const toChannelsLast = output.format == TensorFormat::kHWC;
    transposeBatched(source, output.data, input.shape[0], toChannelsLast ? channels : spatial,
        toChannelsLast ? spatial : channels, elementSize(output.type));
}

} // namespace kiln::cpu
