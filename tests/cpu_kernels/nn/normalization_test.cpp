#include "backend/cpu/kernels/nn/normalization.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

network::NormalizationParams normalization(uint32_t axes, float epsilon, int64_t nbGroups)
{
    network::NormalizationParams params;
    params.axes = axes;
    params.epsilon = epsilon;
    params.nbGroups = nbGroups;
    return params;
}

std::vector<float> normalize(network::NormalizationParams const& params, HostTensor const& input,
    HostTensor const& scale, HostTensor const& bias)
{
    HostTensor output = zeros(input.shape);
    runNormalization(params, input.constView(), scale.constView(), bias.constView(), output.view());
    return output.floats();
}

// [1, 2, 3, 4] normalized: mean 2.5, variance 1.25.
float const kFar = 1.5F / std::sqrt(1.25F);
float const kNear = 0.5F / std::sqrt(1.25F);

TEST(Normalization, LayerNormOverTheLastAxis)
{
    HostTensor const input = fromFloats({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
    HostTensor const scale = fromFloats({1, 4}, {1, 1, 2, 2});
    HostTensor const bias = fromFloats({1, 4}, {0, 0, 0, 1});
    network::NormalizationParams params = normalization(1U << 1, 0.0F, 1);
    // A constant row has variance 0; epsilon keeps it finite (0 / sqrt(eps) = 0).
    params.epsilon = 1e-5F;
    float const far = 1.5F / std::sqrt(1.25F + 1e-5F);
    float const near = 0.5F / std::sqrt(1.25F + 1e-5F);
    expectClose(normalize(params, input, scale, bias), {-far, -near, 2 * near, 2 * far + 1, 0, 0, 0, 1}, 1e-5F);
}

TEST(Normalization, InstanceNormPerChannel)
{
    // Channel 0 holds [1, 3] (mean 2, variance 1), channel 1 [10, 20] (mean 15, variance 25): both normalize to
    // [-1, 1]; then scale [2, 3] and bias [0.5, -0.5] per channel.
    HostTensor const input = fromFloats({1, 2, 2}, {1, 3, 10, 20});
    HostTensor const scale = fromFloats({1, 2, 1}, {2, 3});
    HostTensor const bias = fromFloats({1, 2, 1}, {0.5F, -0.5F});
    expectClose(normalize(normalization(1U << 2, 0.0F, 1), input, scale, bias), {-1.5F, 2.5F, -3.5F, 2.5F}, 1e-5F);
}

TEST(Normalization, GroupNormWithPerChannelAndPerGroupWeights)
{
    // Four channels of two values, two groups: group 0 = [1, 2, 3, 4], group 1 = [10, 20, 30, 40].
    HostTensor const input = fromFloats({1, 4, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
    HostTensor const zero = fromFloats({1, 4, 1}, {0, 0, 0, 0});
    HostTensor const perChannel = fromFloats({1, 4, 1}, {1, 2, 3, 4});
    network::NormalizationParams const params = normalization(1U << 2, 0.0F, 2);
    expectClose(normalize(params, input, perChannel, zero),
        {-kFar, -kNear, 2 * kNear, 2 * kFar, -3 * kFar, -3 * kNear, 4 * kNear, 4 * kFar}, 1e-5F);
    // One weight per group (ONNX GroupNormalization-18).
    HostTensor const perGroup = fromFloats({1, 2, 1}, {1, 2});
    HostTensor const groupBias = fromFloats({1, 2, 1}, {0, 10});
    expectClose(normalize(params, input, perGroup, groupBias),
        {-kFar, -kNear, kNear, kFar, 10 - 2 * kFar, 10 - 2 * kNear, 10 + 2 * kNear, 10 + 2 * kFar}, 1e-5F);
}

TEST(Normalization, HalfStorageRoundsTheFloatResult)
{
    HostTensor const half = fromFloats({1, 2, 3}, {0.1F, 0.7F, -1.3F, 2.9F, 0.33F, 5.0F}, DataType::kHALF);
    HostTensor const scale = fromFloats({1, 1, 3}, {1.1F, 0.9F, 1.0F});
    HostTensor const bias = fromFloats({1, 1, 3}, {0.0F, 0.2F, -0.2F});
    network::NormalizationParams const params = normalization(1U << 2, 1e-5F, 1);
    HostTensor halfOutput = zeros({1, 2, 3}, DataType::kHALF);
    runNormalization(params, half.constView(), scale.constView(), bias.constView(), halfOutput.view());
    HostTensor const reference = fromFloats({1, 2, 3}, half.floats());
    HostTensor floatOutput = zeros({1, 2, 3});
    runNormalization(params, reference.constView(), scale.constView(), bias.constView(), floatOutput.view());
    expectHalfRoundingOf(halfOutput, floatOutput);
}

TEST(Normalization, EmptyAndInvalid)
{
    HostTensor const empty = zeros({0, 4});
    HostTensor const weights = fromFloats({1, 4}, {1, 1, 1, 1});
    EXPECT_NO_THROW(normalize(normalization(2U, 1e-5F, 1), empty, weights, weights));
    HostTensor const input = fromFloats({1, 3, 1}, {1, 2, 3});
    HostTensor const three = fromFloats({1, 3, 1}, {1, 1, 1});
    EXPECT_THROW(normalize(normalization(4U, 1e-5F, 2), input, three, three), std::invalid_argument);
    EXPECT_THROW(normalize(normalization(8U, 1e-5F, 1), input, three, three), std::invalid_argument);
    HostTensor const wrong = fromFloats({1, 2, 1}, {1, 1});
    EXPECT_THROW(normalize(normalization(4U, 1e-5F, 1), input, wrong, wrong), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
