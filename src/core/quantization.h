// The arithmetic of quantization, one element at a time, exactly as ONNX defines QuantizeLinear and DequantizeLinear:
//   quantize    q = saturate(round(x / scale) + zeroPoint)  in FP32; INT8 rounds half to even and saturates to
//               [-128, 127] (NaN gives the zero point, where ONNX leaves it undefined); FP8 E4M3FN rounds to nearest
//               even and saturates to +-448 (ONNX's saturate=1), NaN staying NaN
//   dequantize  x = (q - zeroPoint) * scale                 in FP32; the caller rounds it into its type
// TensorRT takes only zero points of 0 (symmetric quantization), which the ONNX parser holds to; the kernels compute
// ONNX's formula whatever the zero point, so that every backend gives ONNX's result.
// Shared by the CPU reference, the CUDA kernels and the ONNX parser (which computes Q/DQ of constant weights while it
// imports), so that all three agree bit for bit. Header-only (docs/architecture.md, "Layering").
#pragma once

#include "device_common/fp8.h"
#include "device_common/host_device.h"

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace kiln
{

//! value rounded to the nearest integer, ties to even.
KILN_HOST_DEVICE inline float roundHalfToEven(float value)
{
#if defined(__CUDA_ARCH__)
    return rintf(value);
#else
    // nearbyint rounds in the current rounding mode, which is to nearest even unless an application changed it.
    return std::nearbyint(value);
#endif
}

//! ONNX QuantizeLinear into INT8: round(x / scale) (half to even) + zeroPoint, saturated to [-128, 127]; NaN gives
//! the zero point.
KILN_HOST_DEVICE inline int8_t quantizeToInt8(float x, float scale, int8_t zeroPoint = 0)
{
    float const scaled = x / scale;
    if (scaled != scaled)
    {
        return zeroPoint;
    }
    float const shifted = roundHalfToEven(scaled) + static_cast<float>(zeroPoint);
    return static_cast<int8_t>(shifted >= 127.F ? 127.F : shifted <= -128.F ? -128.F : shifted);
}

//! ONNX QuantizeLinear into FP8 E4M3FN with saturate=1: x / scale + zeroPoint in FP8 (fp8.h's rounding and
//! saturation). A zero point of zero is not added, so that -0 stays -0 as ONNX Runtime keeps it. NaN keeps its sign,
//! taken from x: a GPU's division returns NaN without it.
KILN_HOST_DEVICE inline uint8_t quantizeToFp8(float x, float scale, uint8_t zeroPoint = 0)
{
    if (x != x)
    {
        return floatToFp8E4m3Bits(x);
    }
    float const scaled = x / scale;
    return floatToFp8E4m3Bits((zeroPoint & 0x7FU) == 0 ? scaled : scaled + fp8E4m3BitsToFloat(zeroPoint));
}

//! ONNX DequantizeLinear of INT8: (q - zeroPoint) * scale.
KILN_HOST_DEVICE inline float dequantizeInt8(int8_t q, float scale, int8_t zeroPoint = 0)
{
    return static_cast<float>(static_cast<int32_t>(q) - static_cast<int32_t>(zeroPoint)) * scale;
}

//! ONNX DequantizeLinear of FP8 E4M3FN: (q - zeroPoint) * scale.
KILN_HOST_DEVICE inline float dequantizeFp8(uint8_t q, float scale, uint8_t zeroPoint = 0)
{
    float const value = fp8E4m3BitsToFloat(q);
    return ((zeroPoint & 0x7FU) == 0 ? value : value - fp8E4m3BitsToFloat(zeroPoint)) * scale;
}

//! x quantized by `scale` into FP8 E4M3FN (`fp8`) or INT8 and dequantized again, as a Q -> DQ pair of one scale and a
//! zero point of zero computes: x rounded onto that type's grid of `scale` and saturated there.
KILN_HOST_DEVICE inline float roundThroughQuantization(float x, float scale, bool fp8)
{
    return fp8 ? dequantizeFp8(quantizeToFp8(x, scale), scale) : dequantizeInt8(quantizeToInt8(x, scale), scale);
}

} // namespace kiln
