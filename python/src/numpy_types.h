// Which numpy dtype holds which TensorRT DataType (the types numpy has: no BF16, FP8, INT4 or FP4).
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/numpy.h>

#include <optional>

namespace kiln::python
{

//! The DataType of a numpy dtype; nothing for a dtype TensorRT has no type for (float64, complex, strings...).
std::optional<nvinfer1::DataType> dataTypeOf(pybind11::dtype const& dtype);
//! The numpy dtype of a DataType; raises TypeError for one numpy lacks.
pybind11::dtype numpyTypeOf(nvinfer1::DataType type);
//! Bytes per element; 1 for the sub-byte types, which are counted in bytes by what the extension exposes.
size_t elementSize(nvinfer1::DataType type);
//! The buffer-protocol format character of a DataType ("B", bytes, for types numpy lacks).
char const* bufferFormatOf(nvinfer1::DataType type);

} // namespace kiln::python
