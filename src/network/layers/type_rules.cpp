#include "network/layers/type_rules.h"

namespace kiln::network
{

std::string typeName(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return "FLOAT";
    case DataType::kHALF: return "HALF";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "UNKNOWN(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

} // namespace kiln::network
