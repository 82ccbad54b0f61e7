// The bytes per element of TensorRT's data types, one definition for host and CUDA device code, the library and the
// plugins.
#pragma once

#include "device_common/host_device.h"

#include <NvInferRuntimeBase.h>

#include <cstddef>

namespace kiln
{

//! Bytes per element; 0 for types that are not byte-addressable (kINT4, kFP4).
KILN_HOST_DEVICE constexpr size_t elementSize(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kBOOL:
    case DataType::kFP8:
    case DataType::kE8M0: return 1;
    case DataType::kINT64: return 8;
    case DataType::kINT4:
    case DataType::kFP4: return 0;
    }
    return 0;
}

} // namespace kiln
