// What every part of Kiln asks of TensorRT's data types: element sizes (device_common's, shared with the plugins),
// names and families. Usable in CUDA device code too, so that kernels and the host agree on them.
#pragma once

#include "device_common/element_size.h"
#include "device_common/host_device.h"

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <string>

namespace kiln
{

KILN_HOST_DEVICE constexpr bool isFloatType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF || type == nvinfer1::DataType::kBF16;
}

KILN_HOST_DEVICE constexpr bool isIntegerType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64 || type == nvinfer1::DataType::kINT8
        || type == nvinfer1::DataType::kUINT8;
}

//! The types whose elements every kernel reads as numbers: the float, integer and BOOL types (the 8-bit floats and
//! the sub-byte types are only stored and converted by quantization layers).
KILN_HOST_DEVICE constexpr bool isNumericType(nvinfer1::DataType type)
{
    return isFloatType(type) || isIntegerType(type) || type == nvinfer1::DataType::kBOOL;
}

//! The types of shape tensors and of index tensors (gather indices, top-k indices, one-hot indices).
KILN_HOST_DEVICE constexpr bool isIndexType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64;
}

//! The type's name as TensorRT's API prints it (FLOAT, HALF, INT32, ...).
std::string dataTypeName(nvinfer1::DataType type);

//! The type's name as trtexec prints it (FP32, FP16, INT32, ...): what the kiln command shows.
std::string trtexecTypeName(nvinfer1::DataType type);

} // namespace kiln
