// Element access for the tensor-manipulation kernels: the shared loads and stores of nn/element_access.h,
// checked against the types these kernels take (floating point, or INT32/INT64 indices and axes).
#pragma once

#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/shared/kernel_checks.h"
#include "core/tensor_view.h"
#include "device_common/half.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kiln::cpu::tensor_detail
{

using nvinfer1::DataType;

//! Element `index` of an FP32, FP16 or BF16 buffer as a float; other types throw.
inline float readFloat(void const* data, DataType type, int64_t index)
{
    if (!isFloatType(type))
    {
        throw std::invalid_argument(std::string("expected a floating-point tensor, got ") + dataTypeName(type));
    }
    return loadFloat(data, type, index);
}

//! Stores `value` into element `index` of an FP32, FP16 or BF16 buffer (16-bit types round to nearest even).
inline void writeFloat(void* data, DataType type, int64_t index, float value)
{
    if (!isFloatType(type))
    {
        throw std::invalid_argument(std::string("expected a floating-point tensor, got ") + dataTypeName(type));
    }
    storeFloat(data, type, index, value);
}

//! Element `index` of an INT32 or INT64 tensor (indices, axes, integer data); other types throw.
inline int64_t readInteger(void const* data, DataType type, int64_t index)
{
    if (!isIndexType(type))
    {
        throw std::invalid_argument(std::string("expected an INT32 or INT64 tensor, got ") + dataTypeName(type));
    }
    return loadInt(data, type, index);
}

//! Stores `value` into an INT32 (wrapping, as two's complement narrowing does) or INT64 element.
inline void writeInteger(void* data, DataType type, int64_t index, int64_t value)
{
    if (!isIndexType(type))
    {
        throw std::invalid_argument(std::string("expected an INT32 or INT64 tensor, got ") + dataTypeName(type));
    }
    storeInt(data, type, index, value);
}

using backend::kernel_checks::byteSizeOf; // throws unless a byte-copying kernel handles the element size

//! The bytes of `value` stored as one element of `type` (fill values of slice, pad and fill). Integers
//! truncate toward zero and saturate; BOOL is value != 0.
inline std::array<uint8_t, 8> encodeScalar(DataType type, double value)
{
    std::array<uint8_t, 8> bytes{};
    auto store = [&bytes](auto element) { std::memcpy(bytes.data(), &element, sizeof(element)); };
    auto saturate = [value](double low, double high) { return std::isnan(value) ? 0.0 : std::clamp(value, low, high); };
    switch (type)
    {
    case DataType::kFLOAT: store(static_cast<float>(value)); break;
    case DataType::kHALF: store(floatToHalfBits(static_cast<float>(value))); break;
    case DataType::kBF16: store(floatToBf16Bits(static_cast<float>(value))); break;
    case DataType::kINT8: store(static_cast<int8_t>(saturate(-128.0, 127.0))); break;
    case DataType::kUINT8: store(static_cast<uint8_t>(saturate(0.0, 255.0))); break;
    case DataType::kINT32: store(static_cast<int32_t>(saturate(-2147483648.0, 2147483647.0))); break;
    case DataType::kINT64:
        // 2^63 itself is not an int64; the largest double below it is.
        store(static_cast<int64_t>(saturate(-9223372036854775808.0, 9223372036854774784.0)));
        break;
    case DataType::kBOOL: store(static_cast<uint8_t>(value != 0.0 ? 1 : 0)); break;
    default: throw std::invalid_argument(std::string("cannot encode a scalar as ") + dataTypeName(type));
    }
    return bytes;
}

} // namespace kiln::cpu::tensor_detail
