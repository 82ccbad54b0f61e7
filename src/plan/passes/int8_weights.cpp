#include "plan/passes/int8_weights.h"

#include "core/quantization.h"

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

//! How one quantized type's codes hold weights: the code of a weight for a scale, where it gives the weight back bit
//! for bit, and the code magnitudes the largest weight of a channel may have, most likely first.
struct Int8Grid
{
    using Code = int8_t;
    //! Symmetric max calibration (Model Optimizer's, TensorRT's) puts the largest weight at 127.
    static std::vector<float> largestCodes()
    {
        return {127.0F};
    }
    static std::optional<int8_t> exactCode(float weight, float scale)
    {
        float const rounded = roundHalfToEven(weight / scale);
        if (!(std::fabs(rounded) <= 127.0F) || !sameBits(dequantizeInt8(static_cast<int8_t>(rounded), scale), weight))
        {
            return std::nullopt;
        }
        return static_cast<int8_t>(rounded);
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
    static std::optional<uint8_t> exactCode(float weight, float scale)
    {
        uint8_t const code = quantizeToFp8(weight, scale);
        return sameBits(dequantizeFp8(code, scale), weight) ? std::optional<uint8_t>(code) : std::nullopt;
    }
};

//! Writes the channel's codes for `scale` into `q` where they give every weight back exactly.
template <typename Grid>
bool quantizesExactly(float const* weights, size_t count, float scale, typename Grid::Code* q)
{
    if (!(std::isfinite(scale) && scale > 0.0F))
    {
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        std::optional<typename Grid::Code> const code = Grid::exactCode(weights[i], scale);
        if (!code)
        {
            return false;
        }
        q[i] = *code;
    }
    return true;
}

//! `calibrated` or one of its two nearest FP32 neighbours either side, where it gives the channel's weights back
//! (the stored scale times the largest code was rounded once, then divided back), with the codes written into `q`.
template <typename Grid>
std::optional<float> scaleNear(float const* weights, size_t count, float calibrated, typename Grid::Code* q)
{
    float below = calibrated;
    float above = calibrated;
    for (int step = 0; step <= 2; ++step)
    {
        if (quantizesExactly<Grid>(weights, count, below, q))
        {
            return below;
        }
        if (step > 0 && quantizesExactly<Grid>(weights, count, above, q))
        {
            return above;
        }
        below = std::nextafter(below, 0.0F);
        above = std::nextafter(above, INFINITY);
    }
    return std::nullopt;
}

//! The channel's scale, with its codes written into `q`; nullopt where none gives the weights back.
template <typename Grid>
std::optional<float> channelScale(float const* weights, size_t count, typename Grid::Code* q)
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
        return quantizesExactly<Grid>(weights, count, 1.0F, q) ? std::optional<float>(1.0F) : std::nullopt;
    }
    for (float const code : Grid::largestCodes())
    {
        if (std::optional<float> const scale = scaleNear<Grid>(weights, count, largest / code, q))
        {
            return scale;
        }
    }
    return std::nullopt;
}

template <typename Grid, typename Result>
std::optional<Result> recoverWeights(std::vector<float> const& weights, int64_t channels)
{
    if (channels <= 0 || weights.empty() || weights.size() % static_cast<size_t>(channels) != 0)
    {
        return std::nullopt;
    }
    size_t const perChannel = weights.size() / static_cast<size_t>(channels);
    Result result{std::vector<typename Grid::Code>(weights.size()), std::vector<float>(static_cast<size_t>(channels))};
    for (size_t c = 0; c < static_cast<size_t>(channels); ++c)
    {
        std::optional<float> const scale
            = channelScale<Grid>(weights.data() + c * perChannel, perChannel, result.values.data() + c * perChannel);
        if (!scale)
        {
            return std::nullopt;
        }
        result.scales[c] = *scale;
    }
    return result;
}

} // namespace

std::optional<Int8Weights> recoverInt8Weights(std::vector<float> const& weights, int64_t channels)
{
    return recoverWeights<Int8Grid, Int8Weights>(weights, channels);
}

std::optional<Fp8Weights> recoverFp8Weights(std::vector<float> const& weights, int64_t channels)
{
    return recoverWeights<Fp8Grid, Fp8Weights>(weights, channels);
}

} // namespace kiln::plan
