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

std::vector<float> activated(
    ActivationType type, std::vector<float> const& values, float alpha = 0.0F, float beta = 0.0F)
{
    HostTensor const input = fromFloats({static_cast<int64_t>(values.size())}, values);
    HostTensor output = zeros(input.shape);
    runActivation(activationParams(type, alpha, beta), input.constView(), output.view());
    return output.floats();
}

TEST(Activation, PiecewiseLinearKinds)
{
    expectClose(activated(ActivationType::kRELU, {-2, 0, 3}), {0, 0, 3}, 0.0F);
    expectClose(activated(ActivationType::kLEAKY_RELU, {-2, 0, 3}, 0.1F), {-0.2F, 0, 3}, 1e-5F);
    expectClose(activated(ActivationType::kCLIP, {-5, 0.5F, 5}, -1.0F, 2.0F), {-1, 0.5F, 2}, 0.0F);
    expectClose(activated(ActivationType::kHARD_SIGMOID, {-5, 0, 1, 5}, 0.2F, 0.5F), {0, 0.5F, 0.7F, 1}, 1e-5F);
    // Strictly greater than alpha.
    expectClose(activated(ActivationType::kTHRESHOLDED_RELU, {0.5F, 1, 1.5F, -2}, 1.0F), {0, 0, 1.5F, 0}, 0.0F);
    expectClose(activated(ActivationType::kSOFTSIGN, {-3, 0, 1}), {-0.75F, 0, 0.5F}, 0.0F);
}

TEST(Activation, ExponentialKinds)
{
    expectClose(activated(ActivationType::kSIGMOID, {-100, 0, 1, 100}), {0, 0.5F, 0.7310585786F, 1}, 1e-5F);
    expectClose(activated(ActivationType::kTANH, {-1, 0, 20}), {-0.7615941560F, 0, 1}, 1e-5F);
    expectClose(activated(ActivationType::kELU, {-1, 0, 2}, 2.0F), {-1.2642411177F, 0, 2}, 1e-5F);
    // SELU with ONNX's constants: beta * alpha * (exp(x) - 1) below zero, beta * x above.
    expectClose(
        activated(ActivationType::kSELU, {-1, 0, 2}, 1.6732632F, 1.0507010F), {-1.1113307F, 0, 2.101402F}, 1e-5F);
    expectClose(activated(ActivationType::kSCALED_TANH, {2, 0}, 2.0F, 0.5F), {1.5231883119F, 0}, 1e-5F);
}

TEST(Activation, SoftplusIsStableForLargeInputs)
{
    // log(1 + exp(1000)) must not overflow to infinity; log(1 + exp(-100)) is about 3.7e-44, not 0 - 0.
    std::vector<float> const unit = activated(ActivationType::kSOFTPLUS, {-100, 0, 100, 1000}, 1.0F, 1.0F);
    expectClose(unit, {0, 0.6931471806F, 100, 1000}, 1e-5F);
    EXPECT_GT(unit[0], 0.0F);
    // alpha * log(exp(beta * x) + 1) = 2 * log(1 + e) at x = 2, beta = 0.5.
    expectClose(activated(ActivationType::kSOFTPLUS, {2}, 2.0F, 0.5F), {2.6265233750F}, 1e-5F);
}

TEST(Activation, GeluVariants)
{
    expectClose(activated(ActivationType::kGELU_ERF, {-1, 0, 1}), {-0.1586552539F, 0, 0.8413447461F}, 1e-5F);
    expectClose(
        activated(ActivationType::kGELU_TANH, {-1, 0, 1, 3}), {-0.1588080094F, 0, 0.8411919906F, 2.9963626079F}, 1e-5F);
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
    HostTensor halfTensor = fromFloats({6}, values, DataType::kHALF);
    HostTensor const reference = fromFloats({6}, halfTensor.floats());
    HostTensor referenceOutput = zeros({6});
    network::ActivationParams const params = activationParams(ActivationType::kGELU_TANH, 0.0F, 0.0F);
    runActivation(params, reference.constView(), referenceOutput.view());
    runActivation(params, halfTensor.constView(), halfTensor.view()); // in place
    expectHalfRoundingOf(halfTensor, referenceOutput);
}

TEST(Activation, EmptyAndMismatched)
{
    HostTensor const empty = zeros({3, 0});
    HostTensor emptyOutput = zeros({3, 0});
    EXPECT_NO_THROW(runActivation(network::ActivationParams{}, empty.constView(), emptyOutput.view()));
    HostTensor const input = fromFloats({2}, {1, 2});
    HostTensor wrong = zeros({3});
    EXPECT_THROW(runActivation(network::ActivationParams{}, input.constView(), wrong.view()), std::invalid_argument);
    HostTensor intOutput = zeros({2}, DataType::kINT32);
    EXPECT_THROW(
        runActivation(network::ActivationParams{}, input.constView(), intOutput.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
