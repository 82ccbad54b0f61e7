// Small owning buffers for the tensor-kernel tests: values written in the test, viewed as tensors.
#pragma once

#include "core/tensor_view.h"
#include "core/half.h"

#include <NvInferRuntimeBase.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::cpu::test
{

using nvinfer1::DataType;

template <typename T>
constexpr DataType dataTypeOf()
{
    if constexpr (std::is_same_v<T, float>)
        return DataType::kFLOAT;
    else if constexpr (std::is_same_v<T, int32_t>)
        return DataType::kINT32;
    else if constexpr (std::is_same_v<T, int64_t>)
        return DataType::kINT64;
    else if constexpr (std::is_same_v<T, int8_t>)
        return DataType::kINT8;
    else if constexpr (std::is_same_v<T, uint8_t>)
        return DataType::kUINT8;
    else
        return DataType::kHALF; // uint16_t: FP16 bits unless a test says BF16
}

//! An owning tensor of element type T (uint16_t holds FP16 or BF16 bits).
template <typename T>
struct Tensor
{
    Shape shape;
    std::vector<T> values;
    DataType type{dataTypeOf<T>()};

    Tensor(Shape s, std::vector<T> v, DataType t = dataTypeOf<T>())
        : shape(std::move(s))
        , values(std::move(v))
        , type(t)
    {
    }
    //! Output buffer of `s`, prefilled with a marker so that untouched elements show.
    static Tensor zeros(Shape s, DataType t = dataTypeOf<T>(), T marker = T{})
    {
        std::vector<T> v(static_cast<size_t>(volume(s)), marker);
        return Tensor(std::move(s), std::move(v), t);
    }
    TensorView view()
    {
        return TensorView{type, shape, values.data()};
    }
    ConstTensorView cview() const
    {
        return ConstTensorView(type, shape, values.data());
    }
};

inline std::vector<uint16_t> toHalf(std::vector<float> const& values)
{
    std::vector<uint16_t> bits;
    for (float v : values)
    {
        bits.push_back(floatToHalfBits(v));
    }
    return bits;
}

inline std::vector<float> fromHalf(std::vector<uint16_t> const& bits)
{
    std::vector<float> values;
    for (uint16_t b : bits)
    {
        values.push_back(halfBitsToFloat(b));
    }
    return values;
}

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
