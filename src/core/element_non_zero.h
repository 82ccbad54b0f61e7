// Whether one element is non-zero, for any byte-addressable type, on the host and on the device: the rule of
// INonZeroLayer (ONNX NonZero). Floating-point -0.0 is zero and NaN is non-zero; BOOL is non-zero when true.
#pragma once

#include "core/data_type.h"

#include <cstdint>

namespace kiln
{

KILN_HOST_DEVICE inline bool elementIsNonZero(void const* data, nvinfer1::DataType type, int64_t index)
{
    using nvinfer1::DataType;
    switch (type)
    {
    // The sign bit alone (-0.0) is zero: mask it off, then any other bit makes the value non-zero.
    case DataType::kFLOAT: return (static_cast<uint32_t const*>(data)[index] & 0x7fffffffU) != 0;
    case DataType::kHALF:
    case DataType::kBF16: return (static_cast<uint16_t const*>(data)[index] & 0x7fffU) != 0;
    case DataType::kINT32: return static_cast<int32_t const*>(data)[index] != 0;
    case DataType::kINT64: return static_cast<int64_t const*>(data)[index] != 0;
    default: return static_cast<uint8_t const*>(data)[index] != 0; // INT8, UINT8, BOOL
    }
}

} // namespace kiln
