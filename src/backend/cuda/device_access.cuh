// Reading and writing one element of a device tensor of any supported type, and the
// launch shape every elementwise-style kernel uses.
#pragma once

#include "core/data_type.h"

#include <NvInferRuntimeBase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace kiln::cuda::device
{

using nvinfer1::DataType;

//! Element `i` of a floating-point tensor as a float. NaNs keep their sign and payload, as the CPU reference's
//! conversions keep them (the hardware's conversions may make every NaN the same).
__device__ inline float loadFloat(void const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kHALF:
    {
        unsigned int const bits = static_cast<uint16_t const*>(data)[i];
        if ((bits & 0x7C00U) == 0x7C00U && (bits & 0x03FFU) != 0)
        {
            return __uint_as_float(((bits & 0x8000U) << 16) | 0x7F800000U | ((bits & 0x03FFU) << 13));
        }
        return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
    }
    case DataType::kBF16:
        return __uint_as_float(static_cast<unsigned int>(static_cast<uint16_t const*>(data)[i]) << 16);
    default: return static_cast<float const*>(data)[i];
    }
}

//! Stores `value` into a floating-point tensor, rounding to nearest even for FP16 and BF16. NaNs become the CPU
//! reference's NaNs (core/half.h): FP16 keeps the sign and drops the payload, BF16 keeps the top payload bits,
//! where CUDA's conversions would give 0x7FFF for both.
__device__ inline void storeFloat(void* data, DataType type, int64_t i, float value)
{
    unsigned int const bits = __float_as_uint(value);
    bool const nan = isnan(value);
    switch (type)
    {
    case DataType::kHALF:
        static_cast<uint16_t*>(data)[i] = nan ? static_cast<uint16_t>(((bits >> 16) & 0x8000U) | 0x7E00U)
                                              : __half_as_ushort(__float2half_rn(value));
        break;
    case DataType::kBF16:
        static_cast<uint16_t*>(data)[i] = nan ? static_cast<uint16_t>((bits >> 16) | 0x40U)
                                              : __bfloat16_as_ushort(__float2bfloat16_rn(value));
        break;
    default: static_cast<float*>(data)[i] = value; break;
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
