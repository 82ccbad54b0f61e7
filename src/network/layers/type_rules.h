// Small facts about data types that several layers' type rules share.
#pragma once

#include <NvInferRuntimeBase.h>

#include <string>

namespace kiln::network
{

inline bool isFloatType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF
        || type == nvinfer1::DataType::kBF16;
}

inline bool isIntegerType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64
        || type == nvinfer1::DataType::kINT8 || type == nvinfer1::DataType::kUINT8;
}

//! The types of shape tensors and of index tensors (gather indices, top-k indices, one-hot indices).
inline bool isIndexType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64;
}

//! The type's name as TensorRT prints it (FLOAT, HALF, INT32, ...).
std::string typeName(nvinfer1::DataType type);

} // namespace kiln::network
