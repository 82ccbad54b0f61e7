#include "core/data_type.h"

namespace kiln
{
namespace
{

struct TypeNames
{
    char const* tensorrt; //!< the enumerator without its k: FLOAT, HALF, ...
    char const* trtexec;  //!< trtexec's spelling: FP32, FP16, ...
};

TypeNames namesOf(nvinfer1::DataType type)
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

std::string unknownType(nvinfer1::DataType type)
{
    return "UNKNOWN(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

} // namespace

std::string dataTypeName(nvinfer1::DataType type)
{
    char const* name = namesOf(type).tensorrt;
    return name != nullptr ? name : unknownType(type);
}

std::string trtexecTypeName(nvinfer1::DataType type)
{
    char const* name = namesOf(type).trtexec;
    return name != nullptr ? name : unknownType(type);
}

} // namespace kiln
