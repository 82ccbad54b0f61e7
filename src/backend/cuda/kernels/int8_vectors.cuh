// INT8 values 16 at a time, as the kernels that read or write them in 16-byte vectors need them: quantization without
// an IEEE division per value, and the packing of 16 codes into one vector. Shared by the quantized epilogue
// (convolution/quantized_epilogue.cuh) and the quantize layer (pointwise/quantize.cu).
#pragma once

#include "core/quantization.h"

#include <cstdint>

namespace kiln::cuda
{

//! quantizeToInt8(y, scale, zeroPoint), the same bits, mostly without its division: y times the scale's inverse is
//! within two units in the last place of y / scale, so both round to the same integer unless the product lies that
//! close to a half-way point (2^-10 covers every product below 2048; larger ones saturate either way, whatever the
//! zero point). Only then, or for a NaN, does the division decide. An IEEE division (a dozen instructions and a branch
//! to a slow path) for every value took most of a quantized epilogue's time.
__device__ inline int8_t quantizeToInt8Quickly(float y, float scale, float inverseScale, int8_t zeroPoint = 0)
{
    float const product = y * inverseScale;
    float const fraction = product - floorf(product);
    if (!(fabsf(fraction - 0.5F) >= 0x1p-10F))
    {
        return quantizeToInt8(y, scale, zeroPoint);
    }
    float const shifted = rintf(product) + static_cast<float>(zeroPoint);
    return static_cast<int8_t>(fminf(fmaxf(shifted, -128.0F), 127.0F));
}

//! The 16 bytes of `quantized` (INT8 or FP8 codes of 16 values) as one vector.
__device__ inline int4 packedBytes(uint8_t const (&quantized)[16])
{
    int4 packed;
    auto* const words = reinterpret_cast<uint32_t*>(&packed);
#pragma unroll
    for (int w = 0; w < 4; ++w)
    {
        words[w] = quantized[4 * w] | (quantized[4 * w + 1] << 8) | (quantized[4 * w + 2] << 16)
            | (static_cast<uint32_t>(quantized[4 * w + 3]) << 24);
    }
    return packed;
}

} // namespace kiln::cuda
