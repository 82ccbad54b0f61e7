// INT8 values many at a time, as the kernels that read or write them in 16-byte vectors need them: quantization
// without a division or a conversion instruction per value, the packing of codes into words, and INT8 codes turned
// into floats. Shared by the quantized epilogue (convolution/quantized_epilogue.cuh) and the quantize layer
// (pointwise/quantize.cu).
#pragma once

#include "core/quantization.h"

#include <cstdint>

namespace kiln::cuda
{

//! The larger of a and b, or NaN where either is NaN (fmaxf returns the other operand).
__device__ inline float maxOrNan(float a, float b)
{
    float larger;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(larger) : "f"(a), "f"(b));
    return larger;
}

//! The smaller of a and b, or NaN where either is NaN.
__device__ inline float minOrNan(float a, float b)
{
    float smaller;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(smaller) : "f"(a), "f"(b));
    return smaller;
}

//! quantizeToInt8(y[j], scale, zeroPoint) for j = 0 .. 3, the same bits, as the bytes of one word (y[0]'s lowest).
//! Each product y times the scale's inverse, saturated to the codes' range, is rounded by adding 1.5 x 2^23: the
//! sum's low mantissa bits then hold the nearest integer, half to even, and its low byte is the code. The product is
//! within two units in the last place of y / scale (under 2^-15 below 128), so both round to the same integer unless
//! it lies within 2^-10 of a half-way point; only then, or for a NaN (which the saturation keeps), do the four values
//! go through the division. A division for every value, or the conversion instructions of rintf and a cast (a
//! quarter of the FP32 rate), took most of a quantized epilogue's time.
__device__ inline uint32_t quantizeFourToInt8(float const* y, float scale, float inverseScale, int8_t zeroPoint = 0)
{
    constexpr float kRounder = 12582912.0F; // 1.5 x 2^23: a float of this magnitude has no fraction bits
    float const lowest = -128.0F - static_cast<float>(zeroPoint);
    float const highest = 127.0F - static_cast<float>(zeroPoint);
    uint32_t bits[4];
    float farthest = 0.0F; // the largest distance of a product from its integer
#pragma unroll
    for (int j = 0; j < 4; ++j)
    {
        float const product = minOrNan(maxOrNan(y[j] * inverseScale, lowest), highest);
        float const rounded = product + kRounder;
        farthest = maxOrNan(farthest, fabsf(product - (rounded - kRounder)));
        bits[j] = __float_as_uint(rounded) + static_cast<uint32_t>(static_cast<int32_t>(zeroPoint));
    }
    if (!(farthest < 0.5F - 0x1p-10F))
    {
#pragma unroll
        for (int j = 0; j < 4; ++j)
        {
            bits[j] = static_cast<uint8_t>(quantizeToInt8(y[j], scale, zeroPoint));
        }
    }
    return __byte_perm(__byte_perm(bits[0], bits[1], 0x0040), __byte_perm(bits[2], bits[3], 0x0040), 0x5410);
}

//! The four INT8 codes of `word` (the lowest byte first) as floats, exactly, without conversion instructions: each
//! code plus 128 is put in the low mantissa bits of 2^23, which is then subtracted with the 128.
__device__ inline void int8CodesAsFloats(uint32_t word, float (&values)[4])
{
    uint32_t const biased = word ^ 0x80808080U; // each code plus 128, as an unsigned byte
#pragma unroll
    for (int j = 0; j < 4; ++j)
    {
        // Byte j of `biased` below the bytes 0x4B 00 00: the bits of 2^23 + (code + 128).
        values[j] = __uint_as_float(__byte_perm(biased, 0x4B000000U, 0x7440 + j)) - 8388736.0F;
    }
}

} // namespace kiln::cuda
