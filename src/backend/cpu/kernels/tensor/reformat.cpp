#include "backend/cpu/kernels/tensor/reformat.h"

#include "backend/cpu/kernels/tensor/cast.h"
#include "backend/shared/channel_order.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cpu
{

namespace
{

//! Copies `positions` runs of channels from `from` (`fromChannels` each) to `to` (`toChannels` each): the channels
//! both have, then zeros. Adds or drops kHWC8's padding.
void copyChannels(
    void const* from, int64_t fromChannels, void* to, int64_t toChannels, int64_t positions, size_t elementBytes)
{
    size_t const kept = static_cast<size_t>(std::min(fromChannels, toChannels)) * elementBytes;
    auto const* source = static_cast<std::byte const*>(from);
    auto* target = static_cast<std::byte*>(to);
    for (int64_t p = 0; p < positions; ++p)
    {
        std::byte* run = target + static_cast<size_t>(p * toChannels) * elementBytes;
        std::memcpy(run, source + static_cast<size_t>(p * fromChannels) * elementBytes, kept);
        std::memset(run + kept, 0, static_cast<size_t>(toChannels) * elementBytes - kept);
    }
}

//! A reformat to or from kHWC8: through kHWC, adding or dropping the padding channels.
void reformatPadded(ConstTensorView const& input, TensorView const& output)
{
    int64_t const channels = input.shape[1];
    int64_t const positions = channels == 0 ? 0 : input.count() / channels;
    int64_t const padded = storedChannels(input.shape, TensorFormat::kHWC8);
    if (output.format == TensorFormat::kHWC8)
    {
        std::vector<std::byte> unpadded(static_cast<size_t>(input.count()) * elementSize(output.type));
        reformat(input, TensorView{output.type, input.shape, unpadded.data(), TensorFormat::kHWC});
        copyChannels(unpadded.data(), channels, output.data, padded, positions, elementSize(output.type));
        return;
    }
    std::vector<std::byte> unpadded(static_cast<size_t>(input.count()) * elementSize(input.type));
    copyChannels(input.data, padded, unpadded.data(), channels, positions, elementSize(input.type));
    reformat(ConstTensorView(input.type, input.shape, unpadded.data(), TensorFormat::kHWC), output);
}

//! A reformat between kLINEAR and a vector-major format (kCHW4, kCHW32) of the same type: element by element,
//! the padding of the last vectors zeros.
void reformatVectorized(ConstTensorView const& input, TensorView const& output)
{
    bool const packs = backend::vectorWidth(output.format) > 0;
    TensorFormat const other = packs ? input.format : output.format;
    if ((other != TensorFormat::kLINEAR && input.format != output.format) || input.type != output.type
        || input.rank() < 3)
    {
        throw std::invalid_argument("reformat: kCHW4 and kCHW32 convert only from and into kLINEAR, in one type, "
                                    "for tensors of at least three axes");
    }
    size_t const bytes = elementSize(input.type);
    if (input.format == output.format)
    {
        // Element for element, the padding included.
        std::memcpy(
            output.data, input.data, static_cast<size_t>(backend::reformattedCount(input.shape, input.format)) * bytes);
        return;
    }
    VectorLayout const layout = backend::vectorLayout(input.shape, packs ? output.format : input.format);
    auto const* source = static_cast<std::byte const*>(input.data);
    auto* target = static_cast<std::byte*>(output.data);
    if (packs)
    {
        std::memset(target, 0, static_cast<size_t>(layout.storedCount()) * bytes);
    }
    int64_t linear = 0;
    for (int64_t o = 0; o < layout.outer; ++o)
    {
        for (int64_t c = 0; c < layout.channels; ++c)
        {
            for (int64_t s = 0; s < layout.inner; ++s, ++linear)
            {
                auto const vectorized = static_cast<size_t>(layout.offset(o, c, s));
                auto const row = static_cast<size_t>(linear);
                std::memcpy(
                    target + (packs ? vectorized : row) * bytes, source + (packs ? row : vectorized) * bytes, bytes);
            }
        }
    }
}

} // namespace

void reformat(ConstTensorView const& input, TensorView const& output)
{
    if (!backend::reformattedFormat(input.format) || !backend::reformattedFormat(output.format))
    {
        throw std::invalid_argument("reformat: Kiln converts tensors between kLINEAR, kHWC, kHWC8, kCHW4 and kCHW32 "
                                    "only");
    }
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("reformat: the output's shape differs from the input's");
    }
    if (backend::vectorWidth(input.format) > 0 || backend::vectorWidth(output.format) > 0)
    {
        reformatVectorized(input, output);
        return;
    }
    if (input.format == output.format && input.format != TensorFormat::kHWC8)
    {
        cast(input, output); // element for element, on the views as they are: nothing to allocate
        return;
    }
    if (input.format == output.format)
    {
        // Element for element, kHWC8's padding included.
        Shape const stored{storedCount(input.shape, input.format)};
        cast(ConstTensorView(input.type, stored, input.data), TensorView{output.type, stored, output.data});
        return;
    }
    if (input.rank() < 3)
    {
        throw std::invalid_argument("reformat: kHWC and kHWC8 need [N, C, spatial...], but the tensor has "
            + std::to_string(input.rank()) + " axes");
    }
    if (output.count() == 0)
    {
        return;
    }
    if (input.format == TensorFormat::kHWC8 || output.format == TensorFormat::kHWC8)
    {
        reformatPadded(input, output);
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
    backend::transposeBatched(source, output.data, input.shape[0], toChannelsLast ? channels : spatial,
        toChannelsLast ? spatial : channels, elementSize(output.type));
}

} // namespace kiln::cpu
