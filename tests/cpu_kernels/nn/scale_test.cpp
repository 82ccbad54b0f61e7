#include "backend/cpu/kernels/nn/scale.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using nvinfer1::ScaleMode;

std::vector<float> scaled(ScaleParams const& params, HostTensor const& input, ConstTensorView const& shift,
    ConstTensorView const& scale, ConstTensorView const& power)
{
    HostTensor output = zeros(DataType::kFLOAT, input.shape);
    runScale(params, input.constView(), shift, scale, power, output.view());
    return output.floats();
}

TEST(Scale, UniformWithAllThreeTerms)
{
    // (2x + 1)^2
    HostTensor const input = floats({1, 2, 1, 2}, {1, 2, 3, 4});
    HostTensor const shift = floats({1}, {1});
    HostTensor const scale = floats({1}, {2});
    HostTensor const power = floats({1}, {2});
    expectNear(scaled(ScaleParams{ScaleMode::kUNIFORM, 1}, input, shift.constView(), scale.constView(),
                   power.constView()),
        {9, 25, 49, 81}, 0.0F);
}

TEST(Scale, EmptyWeightsAreIdentity)
{
    HostTensor const input = floats({1, 2, 1, 1}, {-1.5F, 3});
    expectNear(scaled(ScaleParams{ScaleMode::kCHANNEL, 1}, input, none(), none(), none()), {-1.5F, 3}, 0.0F);
}

TEST(Scale, PerChannelOnAnyAxis)
{
    HostTensor const input = floats({1, 2, 2}, {1, 2, 3, 4});
    HostTensor const scale = floats({2}, {10, 100});
    // Channel axis 1 (NCHW-like): channel 0 holds 1, 2; channel 1 holds 3, 4.
    expectNear(scaled(ScaleParams{ScaleMode::kCHANNEL, 1}, input, none(), scale.constView(), none()),
        {10, 20, 300, 400}, 0.0F);
    // Channel axis 2 (channels last): the weights alternate.
    expectNear(scaled(ScaleParams{ScaleMode::kCHANNEL, 2}, input, none(), scale.constView(), none()),
        {10, 200, 30, 400}, 0.0F);
}

TEST(Scale, ElementwiseSharedAcrossLeadingAxes)
{
    // Weights cover the axes from channelAxis on ([2, 1] -> 2 weights) and repeat over the batch.
    HostTensor const input = floats({2, 2, 1}, {1, 2, 3, 4});
    HostTensor const shift = floats({2}, {0.5F, 0.5F});
    HostTensor const scale = floats({2}, {1, -1});
    expectNear(scaled(ScaleParams{ScaleMode::kELEMENTWISE, 1}, input, shift.constView(), scale.constView(), none()),
        {1.5F, -1.5F, 3.5F, -3.5F}, 0.0F);
}

TEST(Scale, BatchNormFoldedIntoScaleAndShiftInHalf)
{
    std::vector<float> const values{0.3F, -1.7F, 2.2F, 0.9F};
    HostTensor const half = floats({1, 2, 2}, values, DataType::kHALF);
    HostTensor const shift = floats({2}, {0.1F, -0.3F});
    HostTensor const scale = floats({2}, {1.7F, 0.35F});
    ScaleParams const params{ScaleMode::kCHANNEL, 1};
    HostTensor halfOutput = zeros(DataType::kHALF, {1, 2, 2});
    runScale(params, half.constView(), shift.constView(), scale.constView(), none(), halfOutput.view());
    HostTensor const reference = floats({1, 2, 2}, half.floats());
    HostTensor floatOutput = zeros(DataType::kFLOAT, {1, 2, 2});
    runScale(params, reference.constView(), shift.constView(), scale.constView(), none(), floatOutput.view());
    expectHalfRoundingOf(halfOutput, floatOutput);
}

TEST(Scale, RejectsWrongCountsAndAxes)
{
    HostTensor const input = floats({1, 2, 2}, {1, 2, 3, 4});
    HostTensor const three = floats({3}, {1, 2, 3});
    HostTensor output = zeros(DataType::kFLOAT, {1, 2, 2});
    EXPECT_THROW(runScale(ScaleParams{ScaleMode::kCHANNEL, 1}, input.constView(), none(), three.constView(), none(),
                     output.view()),
        std::invalid_argument);
    EXPECT_THROW(scaleWeightCount(ScaleParams{ScaleMode::kCHANNEL, 3}, input.shape), std::invalid_argument);
    EXPECT_EQ(scaleWeightCount(ScaleParams{ScaleMode::kELEMENTWISE, 1}, {5, 2, 3, 4}), 24);
    HostTensor const empty = zeros(DataType::kFLOAT, {0, 2, 2});
    HostTensor emptyOutput = zeros(DataType::kFLOAT, {0, 2, 2});
    HostTensor const two = floats({2}, {1, 2});
    EXPECT_NO_THROW(runScale(ScaleParams{ScaleMode::kCHANNEL, 1}, empty.constView(), none(), two.constView(), none(),
        emptyOutput.view()));
}

} // namespace
} // namespace kiln::cpu::test
