#include "plan/passes/int8_weights.h"

#include "core/quantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::plan
{
namespace
{

bool sameBits(float a, float b)
{
    return std::memcmp(&a, &b, sizeof(float)) == 0;
}

//! Writes the channel's INT8 values for `scale` into `q` where they give every weight back exactly.
bool quantizesExactly(float const* weights, size_t count, float scale, int8_t* q)
{
    if (!(std::isfinite(scale) && scale > 0.0F))
    {
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        float const rounded = roundHalfToEven(weights[i] / scale);
        if (!(std::fabs(rounded) <= 127.0F)
            || !sameBits(dequantizeInt8(static_cast<int8_t>(rounded), scale), weights[i]))
        {
            return false;
        }
        q[i] = static_cast<int8_t>(rounded);
    }
    return true;
}

//! The channel's scale, with its INT8 values written into `q`; nullopt where none gives the weights back.
std::optional<float> channelScale(float const* weights, size_t count, int8_t* q)
{
    float largest = 0.0F;
    for (size_t i = 0; i < count; ++i)
    {
        largest = std::max(largest, std::fabs(weights[i]));
    }
    if (!std::isfinite(largest))
    {
        return std::nullopt;
    }
    float const calibrated = largest == 0.0F ? 1.0F : largest / 127.0F;
    float below = calibrated;
    float above = calibrated;
    // The quotient and two FP32 steps either side: the stored scale times 127 rounded once, then divided back.
    for (int step = 0; step <= 2; ++step)
    {
        if (quantizesExactly(weights, count, below, q))
        {
            return below;
        }
        if (step > 0 && quantizesExactly(weights, count, above, q))
        {
            return above;
        }
        below = std::nextafter(below, 0.0F);
        above = std::nextafter(above, INFINITY);
    }
    return std::nullopt;
}

} // namespace

std::optional<Int8Weights> recoverInt8Weights(std::vector<float> const& weights, int64_t channels)
{
    if (channels <= 0 || weights.empty() || weights.size() % static_cast<size_t>(channels) != 0)
    {
        return std::nullopt;
    }
    size_t const perChannel = weights.size() / static_cast<size_t>(channels);
    Int8Weights result{std::vector<int8_t>(weights.size()), std::vector<float>(static_cast<size_t>(channels))};
    for (size_t c = 0; c < static_cast<size_t>(channels); ++c)
    {
        std::optional<float> const scale
            = channelScale(weights.data() + c * perChannel, perChannel, result.values.data() + c * perChannel);
        if (!scale)
        {
            return std::nullopt;
        }
        result.scales[c] = *scale;
    }
    return result;
}

} // namespace kiln::plan
