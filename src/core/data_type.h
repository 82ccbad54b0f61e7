// What every part of Kiln asks of TensorRT's data types: element sizes (device_common's, shared with the plugins),
// names and families. Usable in CUDA device code too, so that kernels and the host agree on them. Header-only, so
// that the kiln command and the ONNX parser compile it into themselves rather than bind to libkiln's internals
// (docs/architecture.md, "Layering").
#pragma once

#include "device_common/element_size.h"
#include "device_common/host_device.h"

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <cstdint>
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

namespace detail
{

struct TypeNames
{
    char const* tensorrt; //!< the enumerator without its k: FLOAT, HALF, ...
    char const* trtexec;  //!< trtexec's spelling: FP32, FP16, ...
};

inline TypeNames namesOf(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return {"FLOAT", "FP32"};
    case DataType::kHALF: return {"HALF", "FP16"};
    case DataType::kINT8: return {"INT8", "INT8"};
    case DataType::kINT32: return {"INT32", "INT32"};
    case DataType::kBOOL: return {"BOOL", "BOOL"};
    case DataType::kUINT8: return {"UINT8", "UINT8"};
    case DataType::kFP8: return {"FP8", "FP8"};
    case DataType::kBF16: return {"BF16", "BF16"};
    case DataType::kINT64: return {"INT64", "INT64"};
    case DataType::kINT4: return {"INT4", "INT4"};
    case DataType::kFP4: return {"FP4", "FP4"};
    case DataType::kE8M0: return {"E8M0", "E8M0"};
    }
    return {nullptr, nullptr};
}

inline std::string unknownType(nvinfer1::DataType type)
{
    return "UNKNOWN(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

} // namespace detail

//! The type's name as TensorRT's API prints it (FLOAT, HALF, INT32, ...).
inline std::string dataTypeName(nvinfer1::DataType type)
{
    char const* name = detail::namesOf(type).tensorrt;
    return name != nullptr ? name : detail::unknownType(type);
}

//! The type's name as trtexec prints it (FP32, FP16, INT32, ...): what the kiln command shows.
inline std::string trtexecTypeName(nvinfer1::DataType type)
{
    char const* name = detail::namesOf(type).trtexec;
    return name != nullptr ? name : detail::unknownType(type);
}

} // namespace kiln
