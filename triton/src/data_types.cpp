#include "data_types.h"

#include <array>

namespace kiln::triton
{
namespace
{

struct TypeNames
{
    TRITONSERVER_DataType type;
    char const* config;
    char const* protocol;
    uint32_t bytes;
};

constexpr std::array<TypeNames, 14> kTYPE_NAMES{{
    {TRITONSERVER_TYPE_BOOL, "TYPE_BOOL", "BOOL", 1},
    {TRITONSERVER_TYPE_UINT8, "TYPE_UINT8", "UINT8", 1},
    {TRITONSERVER_TYPE_UINT16, "TYPE_UINT16", "UINT16", 2},
    {TRITONSERVER_TYPE_UINT32, "TYPE_UINT32", "UINT32", 4},
    {TRITONSERVER_TYPE_UINT64, "TYPE_UINT64", "UINT64", 8},
    {TRITONSERVER_TYPE_INT8, "TYPE_INT8", "INT8", 1},
    {TRITONSERVER_TYPE_INT16, "TYPE_INT16", "INT16", 2},
    {TRITONSERVER_TYPE_INT32, "TYPE_INT32", "INT32", 4},
    {TRITONSERVER_TYPE_INT64, "TYPE_INT64", "INT64", 8},
    {TRITONSERVER_TYPE_FP16, "TYPE_FP16", "FP16", 2},
    {TRITONSERVER_TYPE_FP32, "TYPE_FP32", "FP32", 4},
    {TRITONSERVER_TYPE_FP64, "TYPE_FP64", "FP64", 8},
    {TRITONSERVER_TYPE_BYTES, "TYPE_STRING", "BYTES", 0},
    {TRITONSERVER_TYPE_BF16, "TYPE_BF16", "BF16", 2},
}};

TypeNames const* namesOf(TRITONSERVER_DataType type)
{
    for (TypeNames const& names : kTYPE_NAMES)
    {
        if (names.type == type)
        {
            return &names;
        }
    }
    return nullptr;
}

} // namespace

TRITONSERVER_DataType tritonTypeOf(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return TRITONSERVER_TYPE_FP32;
    case nvinfer1::DataType::kHALF: return TRITONSERVER_TYPE_FP16;
    case nvinfer1::DataType::kBF16: return TRITONSERVER_TYPE_BF16;
    case nvinfer1::DataType::kINT8: return TRITONSERVER_TYPE_INT8;
    case nvinfer1::DataType::kINT32: return TRITONSERVER_TYPE_INT32;
    case nvinfer1::DataType::kINT64: return TRITONSERVER_TYPE_INT64;
    case nvinfer1::DataType::kBOOL: return TRITONSERVER_TYPE_BOOL;
    case nvinfer1::DataType::kUINT8: return TRITONSERVER_TYPE_UINT8;
    default: return TRITONSERVER_TYPE_INVALID;
    }
}

char const* configTypeName(TRITONSERVER_DataType type)
{
    TypeNames const* names = namesOf(type);
    return names != nullptr ? names->config : "TYPE_INVALID";
}

TRITONSERVER_DataType typeFromConfigName(std::string const& name)
{
    for (TypeNames const& names : kTYPE_NAMES)
    {
        if (name == names.config)
        {
            return names.type;
        }
    }
    return TRITONSERVER_TYPE_INVALID;
}

char const* protocolTypeName(TRITONSERVER_DataType type)
{
    TypeNames const* names = namesOf(type);
    return names != nullptr ? names->protocol : "INVALID";
}

uint32_t elementBytes(TRITONSERVER_DataType type)
{
    TypeNames const* names = namesOf(type);
    return names != nullptr ? names->bytes : 0;
}

} // namespace kiln::triton
