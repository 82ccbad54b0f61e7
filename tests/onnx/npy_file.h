// Reading and writing NumPy .npy files (format version 1.0, little-endian, C order): how the Python tests hand
// tensors to the ONNX model runner and get its outputs back.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::test
{

struct NpyArray
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;
};

//! Reads float32, float16, int64, int32, int8, uint8 and bool arrays; throws std::runtime_error naming the file.
NpyArray readNpy(std::string const& path);
//! Writes the array; throws std::runtime_error naming the file.
void writeNpy(std::string const& path, NpyArray const& array);

} // namespace kiln::test
