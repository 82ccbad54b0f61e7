#include "backend/cpu/kernels/nn/scale.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using nvinfer1::ScaleMode;

//! A scale layer's parameters, its weights taken from test tensors (none() for an absent list).
network::ScaleParams scaling(ScaleMode mode, int32_t channelAxis, ConstTensorView const& shift = none(),
    ConstTensorView const& scale = none(), ConstTensorView const& power = none())
{
    network::ScaleParams params;
    params.mode = mode;
    params.channelAxis = channelAxis;
    params.shift = weightsOf(shift);
    params.scale = weightsOf(scale);
    params.power = weightsOf(power);
    return params;
}

std::vector<float> scaled(network::ScaleParams const& params, HostTensor const& input)
{
    HostTensor output = zeros(input.shape);
    runScale(params, input.constView(), output.view());
    return output.floats();
}

TEST(Scale, UniformWithAllThreeTerms)
{
    // (2x + 1)^2
    HostTensor const input = fromFloats({1, 2, 1, 2}, {1, 2, 3, 4});
    HostTensor const shift = fromFloats({1}, {1});
    HostTensor const scale = fromFloats({1}, {2});
    HostTensor const power = fromFloats({1}, {2});
    expectClose(scaled(scaling(ScaleMode::kUNIFORM, 1, shift.constView(), scale.constView(), power.constView()), input),
        {9, 25, 49, 81}, 0.0F);
}

TEST(Scale, EmptyWeightsAreIdentity)
{
    HostTensor const input = fromFloats({1, 2, 1, 1}, {-1.5F, 3});
    expectClose(scaled(scaling(ScaleMode::kCHANNEL, 1, none(), none(), none()), input), {-1.5F, 3}, 0.0F);
}

TEST(Scale, PerChannelOnAnyAxis)
{
    HostTensor const input = fromFloats({1, 2, 2}, {1, 2, 3, 4});
    HostTensor const scale = fromFloats({2}, {10, 100});
    // Channel axis 1 (NCHW-like): channel 0 holds 1, 2; channel 1 holds 3, 4.
    expectClose(
        scaled(scaling(ScaleMode::kCHANNEL, 1, none(), scale.constView(), none()), input), {10, 20, 300, 400}, 0.0F);
    // Channel axis 2 (channels last): the weights alternate.
    expectClose(
        scaled(scaling(ScaleMode::kCHANNEL, 2, none(), scale.constView(), none()), input), {10, 200, 30, 400}, 0.0F);
}

TEST(Scale, ElementwiseSharedAcrossLeadingAxes)
{
    // Weights cover the axes from channelAxis on ([2, 1] -> 2 weights) and repeat over the batch.
    HostTensor const input = fromFloats({2, 2, 1}, {1, 2, 3, 4});
    HostTensor const shift = fromFloats({2}, {0.5F, 0.5F});
    HostTensor const scale = fromFloats({2}, {1, -1});
    expectClose(scaled(scaling(ScaleMode::kELEMENTWISE, 1, shift.constView(), scale.constView(), none()), input),
        {1.5F, -1.5F, 3.5F, -3.5F}, 0.0F);
}

TEST(Scale, BatchNormFoldedIntoScaleAndShiftInHalf)
{
    std::vector<float> const values{0.3F, -1.7F, 2.2F, 0.9F};
    HostTensor const half = fromFloats({1, 2, 2}, values, DataType::kHALF);
    HostTensor const shift = fromFloats({2}, {0.1F, -0.3F});
    HostTensor const scale = fromFloats({2}, {1.7F, 0.35F});
    network::ScaleParams const params = scaling(ScaleMode::kCHANNEL, 1, shift.constView(), scale.constView(), none());
    HostTensor halfOutput = zeros({1, 2, 2}, DataType::kHALF);
    runScale(params, half.constView(), halfOutput.view());
    HostTensor const reference = fromFloats({1, 2, 2}, half.floats());
    HostTensor floatOutput = zeros({1, 2, 2});
    runScale(params, reference.constView(), floatOutput.view());
    expectHalfRoundingOf(halfOutput, floatOutput);
}

TEST(Scale, RejectsWrongCountsAndAxes)
{
    HostTensor const input = fromFloats({1, 2, 2}, {1, 2, 3, 4});
    HostTensor const three = fromFloats({3}, {1, 2, 3});
    HostTensor output = zeros({1, 2, 2});
    EXPECT_THROW(
        runScale(scaling(ScaleMode::kCHANNEL, 1, none(), three.constView(), none()), input.constView(), output.view()),
        std::invalid_argument);
    EXPECT_THROW(scaleWeightCount(scaling(ScaleMode::kCHANNEL, 3), input.shape), std::invalid_argument);
    EXPECT_EQ(scaleWeightCount(scaling(ScaleMode::kELEMENTWISE, 1), {5, 2, 3, 4}), 24);
    HostTensor const empty = zeros({0, 2, 2});
    HostTensor emptyOutput = zeros({0, 2, 2});
    HostTensor const two = fromFloats({2}, {1, 2});
    EXPECT_NO_THROW(runScale(
        scaling(ScaleMode::kCHANNEL, 1, none(), two.constView(), none()), empty.constView(), emptyOutput.view()));
}

} // namespace
} // namespace kiln::cpu::test
