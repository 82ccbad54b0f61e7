// Reading and writing single elements of a tensor without repeating the type switch in every kernel.
// Floating-point storage (kFLOAT, kHALF, kBF16) is read and written as float; a write to kHALF or kBF16
// rounds to nearest even, which is exactly what storing an FP32 result in that format does.
// Integer and BOOL storage is read and written as int64_t (writes wrap to the storage width).
#pragma once

#include "core/dims_text.h"
#include "device_common/half.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::cpu
{

//! Element `index` of `data` (stored as `type`) as float. Integer and BOOL storage converts exactly where it can.
//! Types that are not byte-addressable read as 0: validate the type once before the loop (requireFloatingPoint
//! below).
inline float loadFloat(void const* data, nvinfer1::DataType type, int64_t index)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return static_cast<float const*>(data)[index];
    case DataType::kHALF: return halfBitsToFloat(static_cast<uint16_t const*>(data)[index]);
    case DataType::kBF16: return bf16BitsToFloat(static_cast<uint16_t const*>(data)[index]);
    case DataType::kINT32: return static_cast<float>(static_cast<int32_t const*>(data)[index]);
    case DataType::kINT64: return static_cast<float>(static_cast<int64_t const*>(data)[index]);
    case DataType::kINT8: return static_cast<float>(static_cast<int8_t const*>(data)[index]);
    case DataType::kUINT8: return static_cast<float>(static_cast<uint8_t const*>(data)[index]);
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[index] != 0 ? 1.0F : 0.0F;
    default: return 0.0F;
    }
}

//! Stores `value` as element `index`; kHALF and kBF16 round to nearest even. Only floating-point types are written.
inline void storeFloat(void* data, nvinfer1::DataType type, int64_t index, float value)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: static_cast<float*>(data)[index] = value; break;
    case DataType::kHALF: static_cast<uint16_t*>(data)[index] = floatToHalfBits(value); break;
    case DataType::kBF16: static_cast<uint16_t*>(data)[index] = floatToBf16Bits(value); break;
    default: break;
    }
}

//! Element `index` of an integral tensor as int64_t; BOOL reads as 0 or 1 (any non-zero byte is true).
inline int64_t loadInt(void const* data, nvinfer1::DataType type, int64_t index)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kINT32: return static_cast<int32_t const*>(data)[index];
    case DataType::kINT64: return static_cast<int64_t const*>(data)[index];
    case DataType::kINT8: return static_cast<int8_t const*>(data)[index];
    case DataType::kUINT8: return static_cast<uint8_t const*>(data)[index];
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[index] != 0 ? 1 : 0;
    default: return 0;
    }
}

//! Stores `value` as element `index` of an integral tensor, wrapping to the storage width (two's complement);
//! BOOL stores 1 for any non-zero value.
inline void storeInt(void* data, nvinfer1::DataType type, int64_t index, int64_t value)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kINT32: static_cast<int32_t*>(data)[index] = static_cast<int32_t>(value); break;
    case DataType::kINT64: static_cast<int64_t*>(data)[index] = value; break;
    case DataType::kINT8: static_cast<int8_t*>(data)[index] = static_cast<int8_t>(value); break;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[index] = static_cast<uint8_t>(value); break;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[index] = value != 0 ? 1 : 0; break;
    default: break;
    }
}

inline float loadFloat(ConstTensorView const& view, int64_t index)
{
    return loadFloat(view.data, view.type, index);
}

inline void storeFloat(TensorView const& view, int64_t index, float value)
{
    storeFloat(view.data, view.type, index, value);
}

inline int64_t loadInt(ConstTensorView const& view, int64_t index)
{
    return loadInt(view.data, view.type, index);
}

inline void storeInt(TensorView const& view, int64_t index, int64_t value)
{
    storeInt(view.data, view.type, index, value);
}

//! `value` as storing it in floating-point `type` leaves it.
inline float roundedTo(nvinfer1::DataType type, float value)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF: return roundThroughHalf(value);
    case nvinfer1::DataType::kBF16: return bf16BitsToFloat(floatToBf16Bits(value));
    default: return value;
    }
}

//! The whole tensor converted to float once, so that kernels with irregular access index a plain array.
std::vector<float> loadAllAsFloat(ConstTensorView const& view);

//! Throws std::invalid_argument naming `what` unless `type` is a floating-point type.
void requireFloatingPoint(nvinfer1::DataType type, char const* what);

//! The same for a view's type. One overload per view kind, so that checking an output (a TensorView) makes no
//! ConstTensorView, which would copy its shape: a run of the reference kernels allocates nothing for the check.
inline void requireFloatingPoint(ConstTensorView const& view, char const* what)
{
    requireFloatingPoint(view.type, what);
}
inline void requireFloatingPoint(TensorView const& view, char const* what)
{
    requireFloatingPoint(view.type, what);
}

//! Throws std::invalid_argument naming `what` unless `shape` equals `expected`.
void requireShape(Shape const& shape, Shape const& expected, char const* what);

} // namespace kiln::cpu
