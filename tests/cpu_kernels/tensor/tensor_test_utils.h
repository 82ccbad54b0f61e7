// What the tensor kernel tests add to tests/support: shapes as layer parameters, views of empty tensors.
#pragma once

#include "core/tensor_view.h"
#include "host_tensor.h"

#include <NvInferRuntimeBase.h>

#include <algorithm>
#include <cstdint>

namespace kiln::cpu::test
{

using nvinfer1::DataType;

//! A shape as the network's parameters hold one.
inline nvinfer1::Dims dimsOf(Shape const& shape)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    std::copy(shape.begin(), shape.end(), dims.d);
    return dims;
}

//! A view with the given shape and no data: kernels must not touch memory for empty tensors.
inline TensorView emptyView(Shape shape, DataType type = DataType::kFLOAT)
{
    return TensorView{type, std::move(shape), nullptr};
}

} // namespace kiln::cpu::test
