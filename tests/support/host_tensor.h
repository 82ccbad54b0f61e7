// The tests' one owning host tensor: a data type, a shape and the bytes, handed to kernels and engines as views.
#pragma once

#include "core/data_type.h"
#include "device_common/half.h"
#include "core/tensor_view.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::test
{

//! The data type whose elements the C++ type T holds; uint16_t holds FP16 bits unless a test names kBF16.
template <typename T>
constexpr nvinfer1::DataType dataTypeOf()
{
    using nvinfer1::DataType;
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
    else if constexpr (std::is_same_v<T, uint16_t>)
        return DataType::kHALF;
    else
        static_assert(sizeof(T) == 0, "no data type holds exactly this C++ type: pass the DataType");
}

namespace host_tensor_detail
{

//! Element `index` of `data` (stored as `type`) as float: FP16 and BF16 widen exactly, integers and BOOL convert.
inline float loadAsFloat(uint8_t const* data, nvinfer1::DataType type, size_t index)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return reinterpret_cast<float const*>(data)[index];
    case DataType::kHALF: return halfBitsToFloat(reinterpret_cast<uint16_t const*>(data)[index]);
    case DataType::kBF16: return bf16BitsToFloat(reinterpret_cast<uint16_t const*>(data)[index]);
    case DataType::kINT32: return static_cast<float>(reinterpret_cast<int32_t const*>(data)[index]);
    case DataType::kINT64: return static_cast<float>(reinterpret_cast<int64_t const*>(data)[index]);
    case DataType::kINT8: return static_cast<float>(reinterpret_cast<int8_t const*>(data)[index]);
    case DataType::kUINT8: return static_cast<float>(data[index]);
    case DataType::kBOOL: return data[index] != 0 ? 1.0F : 0.0F;
    default: throw std::invalid_argument("a test tensor of type " + dataTypeName(type) + " has no float values");
    }
}

//! Element `index` of integer or BOOL `data` as int64_t; BOOL reads as 0 or 1.
inline int64_t loadAsInt(uint8_t const* data, nvinfer1::DataType type, size_t index)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kINT32: return reinterpret_cast<int32_t const*>(data)[index];
    case DataType::kINT64: return reinterpret_cast<int64_t const*>(data)[index];
    case DataType::kINT8: return reinterpret_cast<int8_t const*>(data)[index];
    case DataType::kUINT8: return data[index];
    case DataType::kBOOL: return data[index] != 0 ? 1 : 0;
    default: throw std::invalid_argument("a test tensor of type " + dataTypeName(type) + " has no integer values");
    }
}

//! Throws unless `values` fill `shape`: a test that gives the wrong count has a typo, not a result.
inline void requireCount(size_t values, Shape const& shape)
{
    if (static_cast<int64_t>(values) != volume(shape))
    {
        throw std::invalid_argument("a test tensor of " + std::to_string(volume(shape)) + " elements was given "
            + std::to_string(values) + " values");
    }
}

} // namespace host_tensor_detail

struct HostTensor
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    Shape shape;
    std::vector<uint8_t> bytes;

    int64_t count() const
    {
        return volume(shape);
    }
    //! An empty tensor's views hold a null pointer, so that a kernel which touches one crashes the test.
    TensorView view()
    {
        return TensorView{type, shape, bytes.empty() ? nullptr : bytes.data()};
    }
    ConstTensorView constView() const
    {
        return ConstTensorView(type, shape, bytes.empty() ? nullptr : bytes.data());
    }
    //! Every element as float (any type but the sub-byte ones).
    std::vector<float> floats() const
    {
        std::vector<float> values(static_cast<size_t>(count()));
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = host_tensor_detail::loadAsFloat(bytes.data(), type, i);
        }
        return values;
    }
    //! Every element of an integer or BOOL tensor as int64_t.
    std::vector<int64_t> ints() const
    {
        std::vector<int64_t> values(static_cast<size_t>(count()));
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = host_tensor_detail::loadAsInt(bytes.data(), type, i);
        }
        return values;
    }
    //! The elements as stored, for a T of the element size (uint16_t: FP16 or BF16 bits).
    template <typename T>
    std::vector<T> elements() const
    {
        if (sizeof(T) != elementSize(type))
        {
            throw std::invalid_argument("a test tensor of type " + dataTypeName(type) + " read with elements of "
                + std::to_string(sizeof(T)) + " bytes");
        }
        std::vector<T> stored(static_cast<size_t>(count()));
        if (!bytes.empty())
        {
            std::memcpy(stored.data(), bytes.data(), bytes.size());
        }
        return stored;
    }
};

//! All bits zero (the usual output buffer).
inline HostTensor zeros(Shape shape, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
{
    size_t const size = static_cast<size_t>(volume(shape)) * elementSize(type);
    return HostTensor{type, std::move(shape), std::vector<uint8_t>(size)};
}

//! A floating-point tensor; kHALF and kBF16 round each value to nearest even, as storing an FP32 result does.
inline HostTensor fromFloats(
    Shape shape, std::vector<float> const& values, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
{
    using nvinfer1::DataType;
    if (!isFloatType(type))
    {
        throw std::invalid_argument("fromFloats makes floating-point tensors, not " + dataTypeName(type));
    }
    host_tensor_detail::requireCount(values.size(), shape);
    HostTensor tensor = zeros(std::move(shape), type);
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (type == DataType::kFLOAT)
        {
            std::memcpy(tensor.bytes.data() + 4 * i, &values[i], 4);
            continue;
        }
        uint16_t const bits = type == DataType::kHALF ? floatToHalfBits(values[i]) : floatToBf16Bits(values[i]);
        std::memcpy(tensor.bytes.data() + 2 * i, &bits, 2);
    }
    return tensor;
}

//! An integer or BOOL tensor: values wrap to the storage width (two's complement); BOOL stores 1 for non-zero.
inline HostTensor fromInts(Shape shape, std::vector<int64_t> const& values, nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    if (!isIntegerType(type) && type != DataType::kBOOL)
    {
        throw std::invalid_argument("fromInts makes integer or BOOL tensors, not " + dataTypeName(type));
    }
    host_tensor_detail::requireCount(values.size(), shape);
    HostTensor tensor = zeros(std::move(shape), type);
    uint8_t* data = tensor.bytes.data();
    for (size_t i = 0; i < values.size(); ++i)
    {
        switch (type)
        {
        case DataType::kINT32: reinterpret_cast<int32_t*>(data)[i] = static_cast<int32_t>(values[i]); break;
        case DataType::kINT64: reinterpret_cast<int64_t*>(data)[i] = values[i]; break;
        case DataType::kINT8: reinterpret_cast<int8_t*>(data)[i] = static_cast<int8_t>(values[i]); break;
        case DataType::kUINT8: data[i] = static_cast<uint8_t>(values[i]); break;
        default: data[i] = values[i] != 0 ? 1 : 0; break; // kBOOL
        }
    }
    return tensor;
}

//! The elements as they are to be stored, bit for bit (uint16_t: FP16 bits, or BF16 ones where the type says so).
template <typename T>
HostTensor fromElements(Shape shape, std::vector<T> const& values, nvinfer1::DataType type = dataTypeOf<T>())
{
    if (sizeof(T) != elementSize(type))
    {
        throw std::invalid_argument("a test tensor of type " + dataTypeName(type) + " given elements of "
            + std::to_string(sizeof(T)) + " bytes");
    }
    host_tensor_detail::requireCount(values.size(), shape);
    HostTensor tensor = zeros(std::move(shape), type);
    if (!tensor.bytes.empty())
    {
        std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
    }
    return tensor;
}

//! Every element `value`, stored as given: an output buffer whose untouched elements show.
template <typename T>
HostTensor filledWith(Shape shape, T value, nvinfer1::DataType type = dataTypeOf<T>())
{
    size_t const count = static_cast<size_t>(volume(shape));
    return fromElements(std::move(shape), std::vector<T>(count, value), type);
}

//! Raw bytes (a file's contents, a device buffer read back), which must fill `shape` exactly.
inline HostTensor fromBytes(Shape shape, std::vector<uint8_t> bytes, nvinfer1::DataType type)
{
    if (static_cast<int64_t>(bytes.size()) != volume(shape) * static_cast<int64_t>(elementSize(type)))
    {
        throw std::invalid_argument("a test tensor of " + std::to_string(volume(shape)) + " " + dataTypeName(type)
            + " elements was given " + std::to_string(bytes.size()) + " bytes");
    }
    return HostTensor{type, std::move(shape), std::move(bytes)};
}

} // namespace kiln::test
