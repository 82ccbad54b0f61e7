// Conversions between float and the 16-bit float formats (IEEE half, bfloat16),
// rounding to nearest even, as the hardware does.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace kiln
{

inline uint16_t floatToHalfBits(float value)
{
    uint32_t const x = std::bit_cast<uint32_t>(value);
    uint32_t const sign = (x >> 16) & 0x8000u;
    uint32_t const absx = x & 0x7FFFFFFFu;
    if (absx >= 0x7F800000u) // inf or NaN
    {
        return static_cast<uint16_t>(sign | 0x7C00u | (absx > 0x7F800000u ? 0x200u : 0u));
    }
    if (absx >= 0x477FF000u) // rounds to a magnitude beyond 65504: infinity
    {
        return static_cast<uint16_t>(sign | 0x7C00u);
    }
    if (absx < 0x38800000u) // below the smallest normal half: subnormal or zero
    {
        // Add 0.5 (as a float) so the FPU does the round-to-nearest-even for us.
        float const shifted = std::bit_cast<float>(absx) + 0.5f;
        return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3F000000u));
    }
    uint32_t const mantissaOdd = (absx >> 13) & 1u;
    uint32_t rounded = absx + 0xC8000FFFu + mantissaOdd; // rebias exponent, round half to even
    return static_cast<uint16_t>(sign | (rounded >> 13));
}

inline float halfBitsToFloat(uint16_t bits)
{
    uint32_t const sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    uint32_t const exponent = (bits >> 10) & 0x1Fu;
    uint32_t const mantissa = bits & 0x3FFu;
    if (exponent == 0x1Fu)
    {
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    }
    if (exponent == 0)
    {
        // Subnormal: mantissa * 2^-24.
        float const magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t floatToBf16Bits(float value)
{
    uint32_t const x = std::bit_cast<uint32_t>(value);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    {
        return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet NaN
    }
    uint32_t const roundingBias = 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + roundingBias) >> 16);
}

inline float bf16BitsToFloat(uint16_t bits)
{
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

//! value rounded through half precision (what FP16 storage does to it).
inline float roundThroughHalf(float value)
{
    return halfBitsToFloat(floatToHalfBits(value));
}

} // namespace kiln
