// The arithmetic of the Int8ChannelAffine test plugin, shared by its host path, its CUDA kernel and nothing else:
//
//     y[o, c, s] = quantize((x[o, c, s] * inScale) * weight[c] + bias[c], outScale)
//
// x and y INT8, quantize rounding half to even and saturating to [-128, 127], as Kiln's quantize layer does. The
// tensors lie as `layout` says: kLINEAR, or the vector-major kCHW4 / kCHW32 (device_common/vector_layout.h), the
// vectorized axis being the third from the last, as TensorRT defines those formats.
#pragma once

#include "device_common/host_device.h"
#include "device_common/vector_layout.h"

#include <cmath>
#include <cstdint>

namespace kiln_int8_test
{

//! Where element (o, c, s) lies: row-major where `layout.width` is 0, else vector-major.
KILN_HOST_DEVICE inline int64_t elementOffset(kiln::VectorLayout const& layout, int64_t o, int64_t c, int64_t s)
{
    return layout.width == 0 ? (o * layout.channels + c) * layout.inner + s : layout.offset(o, c, s);
}

//! One output value. The operations are separate (no fused multiply-add), so that host and device agree bit for bit.
KILN_HOST_DEVICE inline int8_t affineQuantized(int8_t x, float inScale, float weight, float bias, float outScale)
{
#if defined(__CUDA_ARCH__)
    float const value = __fadd_rn(__fmul_rn(__fmul_rn(static_cast<float>(x), inScale), weight), bias);
    float const scaled = __fdiv_rn(value, outScale);
    float const rounded = rintf(scaled);
#else
    float const dequantized = static_cast<float>(x) * inScale;
    float const product = dequantized * weight;
    float const value = product + bias;
    float const scaled = value / outScale;
    float const rounded = std::nearbyint(scaled);
#endif
    return static_cast<int8_t>(rounded < -128.0F ? -128.0F : rounded > 127.0F ? 127.0F : rounded);
}

} // namespace kiln_int8_test
