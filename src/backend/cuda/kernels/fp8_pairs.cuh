// FP8 E4M3FN codes two at a time, as the kernels that read or write them in vectors need them: on GPUs with FP8
// (compute capability 8.9 and later) by their conversion instruction, elsewhere by core/quantization.h's function. Both
// round to nearest with ties to even and saturate finite values and infinities to +-448; the instruction writes every
// NaN as 0x7F, and a NaN is given its input's sign back here, so that the codes are quantizeToFp8's (the CPU
// reference's) bit for bit.
#pragma once

#include "core/quantization.h"

#include <cuda_fp8.h>

#include <cstdint>

namespace kiln::cuda
{

//! quantizeToFp8(a, scale) in the low byte and quantizeToFp8(b, scale) in the high byte (a zero point of zero).
__device__ inline uint32_t quantizeTwoToFp8(float a, float b, float scale)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    uint32_t codes = __nv_cvt_float2_to_fp8x2(make_float2(a / scale, b / scale), __NV_SATFINITE, __NV_E4M3);
    if (a != a)
    {
        codes = (codes & 0xFF00U) | floatToFp8E4m3Bits(a);
    }
    if (b != b)
    {
        codes = (codes & 0x00FFU) | uint32_t{floatToFp8E4m3Bits(b)} << 8;
    }
    return codes;
#else
    return uint32_t{quantizeToFp8(a, scale)} | uint32_t{quantizeToFp8(b, scale)} << 8;
#endif
}

//! The values of the FP8 E4M3FN codes in `codes`' low byte (`low`) and high byte (`high`), as fp8E4m3BitsToFloat gives
//! them (a NaN's sign aside): by the conversion instruction into FP16, which holds every FP8 value exactly.
__device__ inline void fp8PairAsFloats(uint16_t codes, float& low, float& high)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    __half2 const pair = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(codes), __NV_E4M3);
    float2 const values = __half22float2(pair);
    low = values.x;
    high = values.y;
#else
    low = fp8E4m3BitsToFloat(static_cast<uint8_t>(codes & 0xFFU));
    high = fp8E4m3BitsToFloat(static_cast<uint8_t>(codes >> 8));
#endif
}

} // namespace kiln::cuda
