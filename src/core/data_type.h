// What every part of Kiln asks of TensorRT's data types: element sizes, names and families. Usable in CUDA device
// code too, so that kernels and the host agree on them.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <string>

#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif

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

//! The type's name as TensorRT's API prints it (FLOAT, HALF, INT32, ...).
std::string dataTypeName(nvinfer1::DataType type);

//! The type's name as trtexec prints it (FP32, FP16, INT32, ...): what the kiln command shows.
std::string trtexecTypeName(nvinfer1::DataType type);

} // namespace kiln
