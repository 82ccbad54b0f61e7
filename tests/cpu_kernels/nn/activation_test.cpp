#include "backend/cpu/kernels/nn/activation.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln::cpu::test
{
namespace
{

using nvinfer1::ActivationType;

network::ActivationParams activationParams(ActivationType type, float alpha = 0.0F, float beta = 0.0F)
{
    network::ActivationParams params;
    params.activation = type;
    params.alpha = alpha;
    params.beta = beta;
    return params;
}

std::vector<float> activated(ActivationType type, std::vector<float> const& values, float alpha = 0.0F,
    float beta = 0.0F)
{
    HostTensor const input = floats({static_cast<int64_t>(values.size())}, values);
    HostTensor output = zeros(DataType::kFLOAT, input.shape);
    runActivation(activationParams(type, alpha, beta), input.constView(), output.view());
    return output.floats();
}

TEST(Activation, PiecewiseLinearKinds)
{
    expectNear(activated(ActivationType::kRELU, {-2, 0, 3}), {0, 0, 3}, 0.0F);
    expectNear(activated(ActivationType::kLEAKY_RELU, {-2, 0, 3}, 0.1F), {-0.2F, 0, 3});
    expectNear(activated(ActivationType::kCLIP, {-5, 0.5F, 5}, -1.0F, 2.0F), {-1, 0.5F, 2}, 0.0F);
    expectNear(activated(ActivationType::kHARD_SIGMOID, {-5, 0, 1, 5}, 0.2F, 0.5F), {0, 0.5F, 0.7F, 1});
    // Strictly greater than alpha.
    expectNear(activated(ActivationType::kTHRESHOLDED_RELU, {0.5F, 1, 1.5F, -2}, 1.0F), {0, 0, 1.5F, 0}, 0.0F);
    expectNear(activated(ActivationType::kSOFTSIGN, {-3, 0, 1}), {-0.75F, 0, 0.5F}, 0.0F);
}

TEST(Activation, ExponentialKinds)
{
    expectNear(activated(ActivationType::kSIGMOID, {-100, 0, 1, 100}), {0, 0.5F, 0.7310585786F, 1});
    expectNear(activated(ActivationType::kTANH, {-1, 0, 20}), {-0.7615941560F, 0, 1});
    expectNear(activated(ActivationType::kELU, {-1, 0, 2}, 2.0F), {-1.2642411177F, 0, 2});
    // SELU with ONNX's constants: beta * alpha * (exp(x) - 1) below zero, beta * x above.
    expectNear(activated(ActivationType::kSELU, {-1, 0, 2}, 1.6732632F, 1.0507010F), {-1.1113307F, 0, 2.101402F});
    expectNear(activated(ActivationType::kSCALED_TANH, {2, 0}, 2.0F, 0.5F), {1.5231883119F, 0});
}

TEST(Activation, SoftplusIsStableForLargeInputs)
{
    // log(1 + exp(1000)) must not overflow to infinity; log(1 + exp(-100)) is about 3.7e-44, not 0 - 0.
    std::vector<float> const unit = activated(ActivationType::kSOFTPLUS, {-100, 0, 100, 1000}, 1.0F, 1.0F);
    expectNear(unit, {0, 0.6931471806F, 100, 1000});
    EXPECT_GT(unit[0], 0.0F);
    // alpha * log(exp(beta * x) + 1) = 2 * log(1 + e) at x = 2, beta = 0.5.
    expectNear(activated(ActivationType::kSOFTPLUS, {2}, 2.0F, 0.5F), {2.6265233750F});
}

TEST(Activation, GeluVariants)
{
    expectNear(activated(ActivationType::kGELU_ERF, {-1, 0, 1}), {-0.1586552539F, 0, 0.8413447461F});
    expectNear(activated(ActivationType::kGELU_TANH, {-1, 0, 1, 3}), {-0.1588080094F, 0, 0.8411919906F, 2.9963626079F});
}

TEST(Activation, NanStaysNan)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    for (ActivationType type : {ActivationType::kRELU, ActivationType::kCLIP, ActivationType::kSIGMOID,
             ActivationType::kHARD_SIGMOID, ActivationType::kGELU_ERF})
    {
        EXPECT_TRUE(std::isnan(activated(type, {nan}, 0.0F, 1.0F)[0])) << static_cast<int32_t>(type);
    }
}

TEST(Activation, HalfStorageRoundsTheFloatResultInPlace)
{
    std::vector<float> const values{-3.1F, -0.2F, 0.0F, 0.3F, 1.7F, 6.0F};
    HostTensor halfTensor = floats({6}, values, DataType::kHALF);
    HostTensor const reference = floats({6}, halfTensor.floats());
    HostTensor referenceOutput = zeros(DataType::kFLOAT, {6});
    network::ActivationParams const params = activationParams(ActivationType::kGELU_TANH, 0.0F, 0.0F);
    runActivation(params, reference.constView(), referenceOutput.view());
    runActivation(params, halfTensor.constView(), halfTensor.view()); // in place
    expectHalfRoundingOf(halfTensor, referenceOutput);
}

TEST(Activation, EmptyAndMismatched)
{
    HostTensor const empty = zeros(DataType::kFLOAT, {3, 0});
    HostTensor emptyOutput = zeros(DataType::kFLOAT, {3, 0});
    EXPECT_NO_THROW(runActivation(network::ActivationParams{}, empty.constView(), emptyOutput.view()));
    HostTensor const input = floats({2}, {1, 2});
    HostTensor wrong = zeros(DataType::kFLOAT, {3});
    EXPECT_THROW(runActivation(network::ActivationParams{}, input.constView(), wrong.view()), std::invalid_argument);
    HostTensor intOutput = zeros(DataType::kINT32, {2});
    EXPECT_THROW(
        runActivation(network::ActivationParams{}, input.constView(), intOutput.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
