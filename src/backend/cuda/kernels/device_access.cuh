// Reading and writing one element of a device tensor of any supported type, FP16 values converted two at a time, and
// the launch shape every elementwise-style kernel uses.
#pragma once

#include "core/data_type.h"

#include <NvInferRuntimeBase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

namespace kiln::cuda::device
{

using nvinfer1::DataType;

//! FP16 bits as a float. NaNs keep their sign and payload, as the CPU reference's conversions keep them (the
//! hardware's conversions may make every NaN the same).
__device__ inline float halfBitsAsFloat(unsigned int bits)
{
    if ((bits & 0x7C00U) == 0x7C00U && (bits & 0x03FFU) != 0)
    {
        return __uint_as_float(((bits & 0x8000U) << 16) | 0x7F800000U | ((bits & 0x03FFU) << 13));
    }
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
}

//! BF16 bits as a float: exact, NaN payloads included.
__device__ inline float bf16BitsAsFloat(unsigned int bits)
{
    return __uint_as_float(bits << 16);
}

//! `value` rounded to nearest even as FP16 bits. A NaN becomes the CPU reference's NaN (device_common/half.h): the sign
//! kept, the payload dropped, where CUDA's conversion would give 0x7FFF.
__device__ inline uint16_t floatAsHalfBits(float value)
{
    unsigned int const bits = __float_as_uint(value);
    return isnan(value) ? static_cast<uint16_t>(((bits >> 16) & 0x8000U) | 0x7E00U)
                        : __half_as_ushort(__float2half_rn(value));
}

//! `value` rounded to nearest even as BF16 bits; a NaN keeps its top payload bits, as on the CPU reference.
__device__ inline uint16_t floatAsBf16Bits(float value)
{
    unsigned int const bits = __float_as_uint(value);
    return isnan(value) ? static_cast<uint16_t>((bits >> 16) | 0x40U)
                        : __bfloat16_as_ushort(__float2bfloat16_rn(value));
}

//! Two 16-bit values as one word, `low` in its low half (the first element in memory).
__device__ inline unsigned int packPair(uint16_t low, uint16_t high)
{
    return static_cast<unsigned int>(low) | (static_cast<unsigned int>(high) << 16);
}

//! Bit 15 of each half of `pair` (two FP16 values, the first in the low half) set where that value is a NaN: a
//! magnitude above infinity's 0x7C00 carries into bit 15 when 0x03FF is added (and no carry crosses the halves).
__device__ inline unsigned int halfNaNBits(unsigned int pair)
{
    return ((pair & 0x7FFF7FFFU) + 0x03FF03FFU) & 0x80008000U;
}

//! FP16 values, two to a word, as floats, exactly as halfBitsAsFloat converts them: by pairs on the hardware's
//! conversion, and element by element where some value is a NaN (its payload kept). One test for every word, so that
//! the usual case, no NaN, costs a few instructions per pair and one branch.
template <int kWords>
__device__ inline void halfPairsAsFloats(unsigned int const (&pairs)[kWords], float (&values)[2 * kWords])
{
    unsigned int nanBits = 0;
#pragma unroll
    for (int w = 0; w < kWords; ++w)
    {
        nanBits |= halfNaNBits(pairs[w]);
    }
    if (nanBits == 0)
    {
#pragma unroll
        for (int w = 0; w < kWords; ++w)
        {
            __half2 half;
            memcpy(&half, &pairs[w], sizeof(half));
            float2 const pair = __half22float2(half);
            values[2 * w] = pair.x;
            values[2 * w + 1] = pair.y;
        }
        return;
    }
#pragma unroll
    for (int w = 0; w < kWords; ++w)
    {
        values[2 * w] = halfBitsAsFloat(pairs[w] & 0xFFFFU);
        values[2 * w + 1] = halfBitsAsFloat(pairs[w] >> 16);
    }
}

//! Floats as FP16 values, two to a word, exactly as floatAsHalfBits rounds them: by pairs on the hardware's
//! conversion, then element by element where a NaN came out (only a NaN makes one).
template <int kWords>
__device__ inline void floatsAsHalfPairs(float const (&values)[2 * kWords], unsigned int (&pairs)[kWords])
{
    unsigned int nanBits = 0;
#pragma unroll
    for (int w = 0; w < kWords; ++w)
    {
        __half2 const half = __floats2half2_rn(values[2 * w], values[2 * w + 1]);
        memcpy(&pairs[w], &half, sizeof(half));
        nanBits |= halfNaNBits(pairs[w]);
    }
    if (nanBits == 0)
    {
        return;
    }
#pragma unroll
    for (int w = 0; w < kWords; ++w)
    {
        pairs[w] = packPair(floatAsHalfBits(values[2 * w]), floatAsHalfBits(values[2 * w + 1]));
    }
}

//! Element `i` of a floating-point tensor as a float, NaN payloads kept (halfBitsAsFloat).
__device__ inline float loadFloat(void const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kHALF: return halfBitsAsFloat(static_cast<uint16_t const*>(data)[i]);
    case DataType::kBF16: return bf16BitsAsFloat(static_cast<uint16_t const*>(data)[i]);
    default: return static_cast<float const*>(data)[i];
    }
}

//! Stores `value` into a floating-point tensor, rounding to nearest even for FP16 and BF16, NaNs as the CPU
//! reference makes them (floatAsHalfBits, floatAsBf16Bits).
__device__ inline void storeFloat(void* data, DataType type, int64_t i, float value)
{
    switch (type)
    {
    case DataType::kHALF: static_cast<uint16_t*>(data)[i] = floatAsHalfBits(value); break;
    case DataType::kBF16: static_cast<uint16_t*>(data)[i] = floatAsBf16Bits(value); break;
    default: static_cast<float*>(data)[i] = value; break;
    }
}

//! `value` as storing it in floating-point `type` leaves it.
__device__ inline float roundedTo(DataType type, float value)
{
    switch (type)
    {
    case DataType::kHALF:
        // halfBitsAsFloat(floatAsHalfBits(value)) without the bit tests: a NaN comes back quiet, its sign kept.
        return isnan(value) ? __uint_as_float((__float_as_uint(value) & 0x80000000U) | 0x7FC00000U)
                            : __half2float(__float2half_rn(value));
    case DataType::kBF16: return bf16BitsAsFloat(floatAsBf16Bits(value));
    default: return value;
    }
}

//! Element `i` of an integer or BOOL tensor.
__device__ inline int64_t loadInteger(void const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kINT8: return static_cast<int8_t const*>(data)[i];
    case DataType::kUINT8:
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[i];
    case DataType::kINT32: return static_cast<int32_t const*>(data)[i];
    default: return static_cast<int64_t const*>(data)[i];
    }
}

//! Stores `value` into an integer tensor, wrapping as two's complement (BOOL stores value != 0).
__device__ inline void storeInteger(void* data, DataType type, int64_t i, int64_t value)
{
    switch (type)
    {
    case DataType::kINT8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(value); break;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(value); break;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[i] = value != 0 ? 1 : 0; break;
    case DataType::kINT32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(value); break;
    default: static_cast<int64_t*>(data)[i] = value; break;
    }
}

//! Index `position` of an INT32/INT64 tensor mapped into [0, extent) (negatives count from the end), or -1 when it is
//! out of range: gather and scatter read their indices on the device and cannot report one.
__device__ inline int64_t resolveIndex(void const* indices, DataType type, int64_t position, int64_t extent)
{
    int64_t const raw = loadInteger(indices, type, position);
    int64_t const index = raw < 0 ? raw + extent : raw;
    return index >= 0 && index < extent ? index : -1;
}

constexpr int kThreadsPerBlock = 256;

//! Enough blocks for `count` elements with grid-stride loops, capped so huge tensors reuse threads.
inline unsigned blocksFor(int64_t count)
{
    int64_t const blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
    return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65535 * 8 ? 65535 * 8 : blocks));
}

} // namespace kiln::cuda::device
