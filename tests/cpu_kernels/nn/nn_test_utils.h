// Owning host tensors for the neural-network kernel tests, and the Dims and weights that layer parameters take.
#pragma once

#include "backend/cpu/kernels/nn/element_access.h"
#include "core/tensor_view.h"
#include "core/half.h"
#include "network/weights_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::cpu::test
{

using nvinfer1::DataType;

struct HostTensor
{
    DataType type{DataType::kFLOAT};
    Shape shape;
    std::vector<std::byte> bytes;

    TensorView view()
    {
        // An empty tensor gets a null pointer, so a kernel that touches it crashes the test.
        return TensorView{type, shape, bytes.empty() ? nullptr : bytes.data()};
    }
    ConstTensorView constView() const
    {
        return ConstTensorView(type, shape, bytes.empty() ? nullptr : bytes.data());
    }
    std::vector<float> floats() const
    {
        return loadAllAsFloat(constView());
    }
    std::vector<int64_t> ints() const
    {
        std::vector<int64_t> values(static_cast<size_t>(volume(shape)));
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = loadInt(constView(), static_cast<int64_t>(i));
        }
        return values;
    }
    uint16_t halfBits(int64_t index) const
    {
        return reinterpret_cast<uint16_t const*>(bytes.data())[index];
    }
};

//! A zero-filled tensor (the usual output).
inline HostTensor zeros(DataType type, Shape shape)
{
    HostTensor tensor{type, std::move(shape), {}};
    tensor.bytes.resize(static_cast<size_t>(volume(tensor.shape)) * elementSize(type));
    return tensor;
}

//! A floating-point tensor; kHALF / kBF16 values are rounded on the way in.
inline HostTensor floats(Shape shape, std::vector<float> const& values, DataType type = DataType::kFLOAT)
{
    HostTensor tensor = zeros(type, std::move(shape));
    EXPECT_EQ(static_cast<int64_t>(values.size()), volume(tensor.shape)) << "test tensor value count";
    for (size_t i = 0; i < values.size(); ++i)
    {
        storeFloat(tensor.view(), static_cast<int64_t>(i), values[i]);
    }
    return tensor;
}

//! An integral (kINT32, kINT64, kINT8) or kBOOL tensor.
inline HostTensor ints(DataType type, Shape shape, std::vector<int64_t> const& values)
{
    HostTensor tensor = zeros(type, std::move(shape));
    EXPECT_EQ(static_cast<int64_t>(values.size()), volume(tensor.shape)) << "test tensor value count";
    for (size_t i = 0; i < values.size(); ++i)
    {
        storeInt(tensor.view(), static_cast<int64_t>(i), values[i]);
    }
    return tensor;
}

//! No tensor (an absent bias or weight list).
inline ConstTensorView none()
{
    return ConstTensorView(DataType::kFLOAT, Shape{0}, nullptr);
}

//! Extents as a layer parameter (window size, stride, padding, dilation); {} leaves the parameter empty.
inline nvinfer1::Dims dimsOf(Shape const& extents)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(extents.size());
    std::copy(extents.begin(), extents.end(), dims.d);
    return dims;
}

//! A tensor's values as a layer's weights (none() gives no weights).
inline network::WeightsBuffer weightsOf(ConstTensorView const& values)
{
    return network::WeightsBuffer(nvinfer1::Weights{values.type, values.data, values.count()});
}

inline void expectNear(std::vector<float> const& actual, std::vector<float> const& expected, float tolerance = 1e-5F)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], tolerance) << "at element " << i;
    }
}

//! Deterministic small integers in [-3, 3]: sums of their products are exact in float, so results compare exactly.
inline std::vector<float> smallIntegers(int64_t count, uint32_t seed)
{
    std::vector<float> values(static_cast<size_t>(count));
    uint32_t state = seed * 2654435761U + 12345U;
    for (float& value : values)
    {
        state = state * 1664525U + 1013904223U;
        value = static_cast<float>(static_cast<int32_t>((state >> 16) % 7U) - 3);
    }
    return values;
}

//! Every element of an FP16 output must be the FP16 rounding of the FP32 result.
inline void expectHalfRoundingOf(HostTensor const& halfOutput, HostTensor const& floatOutput)
{
    std::vector<float> const reference = floatOutput.floats();
    ASSERT_EQ(static_cast<size_t>(volume(halfOutput.shape)), reference.size());
    for (size_t i = 0; i < reference.size(); ++i)
    {
        EXPECT_EQ(halfOutput.halfBits(static_cast<int64_t>(i)), floatToHalfBits(reference[i])) << "at element " << i;
    }
}

} // namespace kiln::cpu::test
