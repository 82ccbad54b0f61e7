// Reading and writing NumPy .npy files (format version 1.0, little-endian, C order): how the Python tests hand
// tensors to the ONNX model runner and get its outputs back.
#pragma once

#include "host_tensor.h"

#include <string>

namespace kiln::test
{

//! Reads float32, float16, int64, int32, int8, uint8 and bool arrays; throws std::runtime_error naming the file.
HostTensor readNpy(std::string const& path);
//! Writes the tensor as an array; throws std::runtime_error naming the file.
void writeNpy(std::string const& path, HostTensor const& array);

} // namespace kiln::test
