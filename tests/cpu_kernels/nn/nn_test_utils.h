// What the nn kernel tests add to tests/support: layer parameters' Dims and weights, exact data, the FP16 check.
#pragma once

#include "device_common/half.h"
#include "core/tensor_view.h"
#include "expect_close.h"
#include "host_tensor.h"
#include "network/weights_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::cpu::test
{

using kiln::test::expectClose;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;

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
    std::vector<uint16_t> const halfBits = halfOutput.elements<uint16_t>();
    for (size_t i = 0; i < reference.size(); ++i)
    {
        EXPECT_EQ(halfBits[i], floatToHalfBits(reference[i])) << "at element " << i;
    }
}

} // namespace kiln::cpu::test
