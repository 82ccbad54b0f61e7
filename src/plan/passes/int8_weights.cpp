#include "plan/passes/int8_weights.h"

#include "core/quantization.h"
#include "device_common/half.h"

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

//! How a 16-bit floating-point type (FP16, BF16) holds values: rounded to its bits, and back.
struct Reduced
{
    uint16_t (*toBits)(float);
    float (*fromBits)(uint16_t);
};

//! A value as the weights' type holds it: FP32 (none), or rounded into `reduced`.
float stored(float value, Reduced const* reduced)
{
    return reduced == nullptr ? value : reduced->fromBits(reduced->toBits(value));
}

//! Writes the channel's INT8 values for `scale` into `q` where they give every weight back exactly, as stored.
bool quantizesExactly(float const* weights, size_t count, float scale, int8_t* q, Reduced const* reduced)
{
    if (!(std::isfinite(scale) && scale > 0.0F))
    {
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        float const rounded = roundHalfToEven(weights[i] / scale);
        if (!(std::fabs(rounded) <= 127.0F)
            || !sameBits(stored(dequantizeInt8(static_cast<int8_t>(rounded), scale), reduced), weights[i]))
        {
            return false;
        }
        q[i] = static_cast<int8_t>(rounded);
    }
    return true;
}

float largestMagnitude(float const* weights, size_t count)
{
    float largest = 0.0F;
    for (size_t i = 0; i < count; ++i)
    {
        largest = std::max(largest, std::fabs(weights[i]));
    }
    return largest;
}

//! The channel's scale, with its INT8 values written into `q`; nullopt where none gives the weights back.
std::optional<float> channelScale(float const* weights, size_t count, int8_t* q)
{
    float const largest = largestMagnitude(weights, count);
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
        if (quantizesExactly(weights, count, below, q, nullptr))
        {
            return below;
        }
        if (step > 0 && quantizesExactly(weights, count, above, q, nullptr))
        {
            return above;
        }
        below = std::nextafter(below, 0.0F);
        above = std::nextafter(above, INFINITY);
    }
    return std::nullopt;
}

//! The same for weights held in a 16-bit type, whose rounding moves the largest magnitude over 127 by up to half a
//! step of that type from the model's scale, too far for its products to round back alike. Each weight bounds the
//! scale instead: q * s must lie within half a step of the weight as the type holds it. The middle of the interval
//! all bounds leave is a scale that gives every weight back (checked, as the bounds' ties may not).
std::optional<float> reducedChannelScale(float const* weights, size_t count, int8_t* q, Reduced const& reduced)
{
    float const largest = largestMagnitude(weights, count);
    if (!std::isfinite(largest) || largest == 0.0F)
    {
        return largest == 0.0F && quantizesExactly(weights, count, 1.0F, q, &reduced) ? std::optional<float>(1.0F)
                                                                                      : std::nullopt;
    }
    float const estimate = largest / 127.0F;
    double low = 0.0;
    double high = INFINITY;
    for (size_t i = 0; i < count; ++i)
    {
        double const steps = std::fabs(roundHalfToEven(weights[i] / estimate));
        if (steps > 127.0)
        {
            return std::nullopt;
        }
        if (steps > 0.0)
        {
            float const magnitude = std::fabs(weights[i]);
            uint16_t const bits = reduced.toBits(magnitude);
            double const previous = bits > 0 ? reduced.fromBits(static_cast<uint16_t>(bits - 1)) : 0.0;
            double const next = reduced.fromBits(static_cast<uint16_t>(bits + 1));
            low = std::max(low, (magnitude + previous) / 2.0 / steps);
            high = std::min(high, (magnitude + next) / 2.0 / steps);
        }
    }
    if (!(low <= high))
    {
        return std::nullopt;
    }
    // Where a product lies exactly between two values of the type, the bound is a tie that rounding to even decides:
    // the interval may be one point, which FP32 holds only to within a step.
    auto const middle = static_cast<float>((low + high) / 2.0);
    float below = middle;
    float above = middle;
    for (int step = 0; step <= 2; ++step)
    {
        for (float const scale : {below, above})
        {
            if (quantizesExactly(weights, count, scale, q, &reduced))
            {
                return scale;
            }
        }
        below = std::nextafter(below, 0.0F);
        above = std::nextafter(above, INFINITY);
    }
    return std::nullopt;
}

} // namespace

std::optional<Int8Weights> recoverInt8Weights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn)
{
    using nvinfer1::DataType;
    bool const known = storedIn == DataType::kFLOAT || storedIn == DataType::kHALF || storedIn == DataType::kBF16;
    if (channels <= 0 || weights.empty() || weights.size() % static_cast<size_t>(channels) != 0 || !known)
    {
        return std::nullopt;
    }
    static Reduced const half{floatToHalfBits, halfBitsToFloat};
    static Reduced const bf16{floatToBf16Bits, bf16BitsToFloat};
    Reduced const* reduced = storedIn == DataType::kHALF ? &half : storedIn == DataType::kBF16 ? &bf16 : nullptr;
    size_t const perChannel = weights.size() / static_cast<size_t>(channels);
    Int8Weights result{std::vector<int8_t>(weights.size()), std::vector<float>(static_cast<size_t>(channels))};
    for (size_t c = 0; c < static_cast<size_t>(channels); ++c)
    {
        float const* channel = weights.data() + c * perChannel;
        int8_t* q = result.values.data() + c * perChannel;
        std::optional<float> const scale = reduced != nullptr ? reducedChannelScale(channel, perChannel, q, *reduced)
                                                              : channelScale(channel, perChannel, q);
        if (!scale)
        {
            return std::nullopt;
        }
        result.scales[c] = *scale;
    }
    return result;
}

} // namespace kiln::plan
