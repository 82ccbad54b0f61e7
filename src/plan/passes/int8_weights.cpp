#include "plan/passes/int8_weights.h"

#include "core/quantization.h"
#include "device_common/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

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

//! How one quantized type's codes hold weights: the code nearest a weight for a scale, if the type has one, its
//! value, and the code magnitudes the largest weight of a channel may have, most likely first.
struct Int8Grid
{
    using Code = int8_t;
    //! Symmetric max calibration (Model Optimizer's, TensorRT's) puts the largest weight at 127.
    static std::vector<float> largestCodes()
    {
        return {127.0F};
    }
    static std::optional<int8_t> nearestCode(float weight, float scale)
    {
        float const rounded = roundHalfToEven(weight / scale);
        return std::fabs(rounded) <= 127.0F ? std::optional<int8_t>(static_cast<int8_t>(rounded)) : std::nullopt;
    }
    static float value(int8_t code, float scale)
    {
        return dequantizeInt8(code, scale);
    }
};

struct Fp8Grid
{
    using Code = uint8_t;
    //! Max calibration puts the largest weight at 448, but Model Optimizer's FP8 weights do not always reach it (the
    //! zoo's ViT export peaks at 36 in every column): every finite FP8 magnitude, 448 first, then downwards.
    static std::vector<float> largestCodes()
    {
        std::vector<float> codes;
        for (uint8_t bits = kFp8E4m3MaxBits; bits > 0; --bits)
        {
            codes.push_back(fp8E4m3BitsToFloat(bits));
        }
        return codes;
    }
    static std::optional<uint8_t> nearestCode(float weight, float scale)
    {
        return quantizeToFp8(weight, scale);
    }
    static float value(uint8_t code, float scale)
    {
        return dequantizeFp8(code, scale);
    }
};

//! Writes the channel's codes for `scale` into `q` where they give every weight back exactly, as stored.
template <typename Grid>
bool quantizesExactly(float const* weights, size_t count, float scale, typename Grid::Code* q, Reduced const* reduced)
{
    if (!(std::isfinite(scale) && scale > 0.0F))
    {
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        std::optional<typename Grid::Code> const code = Grid::nearestCode(weights[i], scale);
        if (!code || !sameBits(stored(Grid::value(*code, scale), reduced), weights[i]))
        {
            return false;
        }
        q[i] = *code;
    }
    return true;
}

//! `estimate` or one of its two nearest FP32 neighbours either side, where it gives the channel's weights back
//! (the stored scale times the largest code was rounded once, then divided back), with the codes written into `q`.
template <typename Grid>
std::optional<float> scaleNear(
    float const* weights, size_t count, float estimate, typename Grid::Code* q, Reduced const* reduced)
{
    float below = estimate;
    float above = estimate;
    for (int step = 0; step <= 2; ++step)
    {
        if (quantizesExactly<Grid>(weights, count, below, q, reduced))
        {
            return below;
        }
        if (step > 0 && quantizesExactly<Grid>(weights, count, above, q, reduced))
        {
            return above;
        }
        below = std::nextafter(below, 0.0F);
        above = std::nextafter(above, INFINITY);
    }
    return std::nullopt;
}

//! The scale of weights held in a 16-bit type whose largest magnitude is `largestCode` steps of the grid. The type's
//! rounding moves that magnitude by up to half a step of the type from the model's scale times the code, too far for
//! the products to round back alike from their quotient. Each weight bounds the scale instead: q * s must lie within
//! half a step of the weight as the type holds it. The middle of the interval all bounds leave is a scale that gives
//! every weight back (checked, as the bounds' ties may not). The codes are the model's: the type's relative rounding
//! (2^-11 for FP16, 2^-9 for BF16) stays far below half of the grid's relative spacing at every code that matters.
template <typename Grid>
std::optional<float> reducedScale(float const* weights, size_t count, float largest, float largestCode,
    typename Grid::Code* q, Reduced const& reduced)
{
    float const estimate = largest / largestCode;
    double low = 0.0;
    double high = INFINITY;
    for (size_t i = 0; i < count && low <= high; ++i)
    {
        std::optional<typename Grid::Code> const code = Grid::nearestCode(weights[i], estimate);
        if (!code)
        {
            return std::nullopt;
        }
        double const steps = std::fabs(Grid::value(*code, 1.0F));
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
    return scaleNear<Grid>(weights, count, static_cast<float>((low + high) / 2.0), q, &reduced);
}

//! The channel's scale, with its codes written into `q`; nullopt where none gives the weights back as stored.
template <typename Grid>
std::optional<float> channelScale(float const* weights, size_t count, typename Grid::Code* q, Reduced const* reduced)
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
    if (largest == 0.0F)
    {
        return quantizesExactly<Grid>(weights, count, 1.0F, q, reduced) ? std::optional<float>(1.0F) : std::nullopt;
    }
    for (float const code : Grid::largestCodes())
    {
        std::optional<float> const scale = reduced != nullptr
            ? reducedScale<Grid>(weights, count, largest, code, q, *reduced)
            : scaleNear<Grid>(weights, count, largest / code, q, nullptr);
        if (scale)
        {
            return scale;
        }
    }
    return std::nullopt;
}

template <typename Grid, typename Result>
std::optional<Result> recoverWeights(std::vector<float> const& weights, int64_t channels, Reduced const* reduced)
{
    if (channels <= 0 || weights.empty() || weights.size() % static_cast<size_t>(channels) != 0)
    {
        return std::nullopt;
    }
    size_t const perChannel = weights.size() / static_cast<size_t>(channels);
    Result result{std::vector<typename Grid::Code>(weights.size()), std::vector<float>(static_cast<size_t>(channels))};
    for (size_t c = 0; c < static_cast<size_t>(channels); ++c)
    {
        std::optional<float> const scale = channelScale<Grid>(
            weights.data() + c * perChannel, perChannel, result.values.data() + c * perChannel, reduced);
        if (!scale)
        {
            return std::nullopt;
        }
        result.scales[c] = *scale;
    }
    return result;
}

//! The weights' values and scales on `Grid`, as held in `storedIn`; nullopt for a type that is not FP32, FP16 or BF16.
template <typename Grid, typename Result>
std::optional<Result> recoverStoredWeights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn)
{
    using nvinfer1::DataType;
    static Reduced const half{floatToHalfBits, halfBitsToFloat};
    static Reduced const bf16{floatToBf16Bits, bf16BitsToFloat};
    switch (storedIn)
    {
    case DataType::kFLOAT: return recoverWeights<Grid, Result>(weights, channels, nullptr);
    case DataType::kHALF: return recoverWeights<Grid, Result>(weights, channels, &half);
    case DataType::kBF16: return recoverWeights<Grid, Result>(weights, channels, &bf16);
    default: return std::nullopt;
    }
}

} // namespace

std::optional<Int8Weights> recoverInt8Weights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn)
{
    return recoverStoredWeights<Int8Grid, Int8Weights>(weights, channels, storedIn);
}

std::optional<Fp8Weights> recoverFp8Weights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn)
{
    return recoverStoredWeights<Fp8Grid, Fp8Weights>(weights, channels, storedIn);
}

} // namespace kiln::plan
