// Conversions between float and FP8 E4M3FN (DataType::kFP8, ONNX's FLOAT8E4M3FN): 1 sign bit, 4 exponent bits
// (bias 7), 3 mantissa bits, no infinities, and one NaN pattern per sign (S.1111.111). Finite magnitudes run from
// 2^-9 (the smallest subnormal) to 448 (S.1111.110). Host and device code share these definitions, so that the CUDA
// kernels compute what the CPU reference computes, bit for bit.
#pragma once

#include "device_common/host_device.h"

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cstring>
#endif

namespace kiln
{

namespace fp8_detail
{

KILN_HOST_DEVICE inline uint32_t floatBits(float value)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#else
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
#endif
}

KILN_HOST_DEVICE inline float bitsFloat(uint32_t bits)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float value = 0.F;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
#endif
}

//! value >> shift, rounded to nearest with ties to even (shift in [1, 31]).
KILN_HOST_DEVICE inline uint32_t shiftRoundingToEven(uint32_t value, uint32_t shift)
{
    uint32_t const kept = value >> shift;
    uint32_t const rest = value & ((1U << shift) - 1U);
    uint32_t const half = 1U << (shift - 1U);
    return kept + ((rest > half || (rest == half && (kept & 1U) != 0U)) ? 1U : 0U);
}

} // namespace fp8_detail

//! The largest finite FP8 E4M3FN magnitude, and its bits.
constexpr float kFp8E4m3Max = 448.F;
constexpr uint8_t kFp8E4m3MaxBits = 0x7E;

//! value in FP8 E4M3FN, rounded to nearest with ties to even; magnitudes beyond 448 (infinities included) saturate
//! to +-448, as ONNX's Cast and QuantizeLinear do with saturate=1 (their default); NaN stays NaN, and the sign of
//! zero is kept.
KILN_HOST_DEVICE inline uint8_t floatToFp8E4m3Bits(float value)
{
    uint32_t const bits = fp8_detail::floatBits(value);
    auto const sign = static_cast<uint8_t>((bits >> 24) & 0x80U);
    uint32_t const magnitude = bits & 0x7FFFFFFFU;
    if (magnitude > 0x7F800000U)
    {
        return static_cast<uint8_t>(sign | 0x7FU);
    }
    if (magnitude >= 0x43E00000U) // 448 and beyond (no value above 448 rounds below it)
    {
        return static_cast<uint8_t>(sign | kFp8E4m3MaxBits);
    }
    int32_t const exponent = static_cast<int32_t>(magnitude >> 23) - 127;
    if (magnitude < 0x00800000U || exponent < -16)
    {
        // A float subnormal or a magnitude below 2^-16 is far below half of FP8's smallest step (2^-9): zero.
        return sign;
    }
    uint32_t const mantissa = (magnitude & 0x007FFFFFU) | 0x00800000U; // with the implicit leading one
    if (exponent < -6)
    {
        // FP8 subnormals are multiples of 2^-9: the value is mantissa * 2^(exponent - 23), so the multiple is
        // mantissa >> (14 - exponent), rounded. Rounding up to 8 gives 0x08, the smallest normal, as it should.
        return static_cast<uint8_t>(
            sign | fp8_detail::shiftRoundingToEven(mantissa, static_cast<uint32_t>(14 - exponent)));
    }
    // Normal: exponent + 7 in bits 3 to 6 and the mantissa's top 3 bits below; a carry of the rounding moves into
    // the exponent, which is the next representable value. Below 448 the result stays at most 0x7E.
    uint32_t const biased = static_cast<uint32_t>(exponent + 7) << 3;
    return static_cast<uint8_t>(sign | (biased + fp8_detail::shiftRoundingToEven(mantissa & 0x007FFFFFU, 20)));
}

//! The exact float value of FP8 E4M3FN bits (every FP8 value is a float).
KILN_HOST_DEVICE inline float fp8E4m3BitsToFloat(uint8_t fp8)
{
    uint32_t const sign = static_cast<uint32_t>(fp8 & 0x80U) << 24;
    uint32_t const exponent = (fp8 >> 3) & 0x0FU;
    uint32_t const mantissa = fp8 & 0x07U;
    if ((fp8 & 0x7FU) == 0x7FU)
    {
        return fp8_detail::bitsFloat(sign | 0x7FC00000U);
    }
    if (exponent == 0)
    {
        float const magnitude = static_cast<float>(mantissa) * 0.001953125F; // mantissa * 2^-9
        return fp8_detail::bitsFloat(sign | fp8_detail::floatBits(magnitude));
    }
    return fp8_detail::bitsFloat(sign | ((exponent + 120U) << 23) | (mantissa << 20));
}

} // namespace kiln
