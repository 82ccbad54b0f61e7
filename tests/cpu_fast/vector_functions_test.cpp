// The fast path's vectorised FP32 point-wise functions (backend/cpu/fast/vector_functions.h) against the reference's
// function of one element (PointwiseFunction, exact in double and rounded once), within the tolerance the header
// states, over every binade of floats of both signs (subnormals, the overflow and underflow edges of exp and large
// |x| included), a fine grid where the functions bend, and infinities, NaN and zeros of both signs, which must come
// out as the reference's exactly.
#include "backend/cpu/fast/vector_functions.h"
#include "backend/cpu/kernels/nn/pointwise.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace kiln::test
{
namespace
{

using network::PointwiseStep;
using nvinfer1::ActivationType;
using nvinfer1::LayerType;

//! Floats of every exponent (subnormals' included) with a few mantissas each, both signs; a grid of step 1/64 over
//! [-24, 24]; infinities, NaN, both zeros, the largest and the smallest floats.
std::vector<float> sweep()
{
    std::vector<float> values;
    for (uint32_t exponent = 0; exponent < 255; ++exponent)
    {
        for (uint32_t mantissa : {0U, 1U, 0x1234U, 0x2AAAAAU, 0x400000U, 0x6DB6DBU, 0x7FFFFFU})
        {
            float const x = std::bit_cast<float>(exponent << 23 | mantissa);
            values.push_back(x);
            values.push_back(-x);
        }
    }
    for (int32_t i = -24 * 64; i <= 24 * 64; ++i)
    {
        values.push_back(static_cast<float>(i) / 64.0F);
    }
    float const inf = std::numeric_limits<float>::infinity();
    for (float x : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0.0F, -0.0F, 1e-40F, -1e-40F,
             std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
             std::numeric_limits<float>::denorm_min(), 88.72F, 88.73F, -87.34F, -103.9F, -104.0F, -110.0F})
    {
        values.push_back(x);
    }
    return values;
}

PointwiseStep activationStep(ActivationType type, float alpha = 0.0F, float beta = 0.0F)
{
    PointwiseStep step;
    step.kind = LayerType::kACTIVATION;
    step.operation = static_cast<int32_t>(type);
    step.alpha = alpha;
    step.beta = beta;
    return step;
}

PointwiseStep expStep()
{
    PointwiseStep step;
    step.kind = LayerType::kUNARY;
    step.operation = static_cast<int32_t>(nvinfer1::UnaryOperation::kEXP);
    return step;
}

//! Checks the vectorised `step` against the reference's over sweep(), within `relative` and `absolute` (0: exactly);
//! NaN, infinities and the sign of every result always exactly.
void expectMatchesReference(PointwiseStep const& step, double relative, double absolute)
{
    ASSERT_TRUE(cpu::fast::vectorizes(step));
    std::vector<float> const x = sweep();
    std::vector<float> fast(x.size());
    cpu::fast::evaluateVectorized(step, x.data(), fast.data(), static_cast<int64_t>(x.size()));
    cpu::PointwiseFunction const reference(step);
    int32_t failures = 0;
    for (size_t i = 0; i < x.size() && failures < 10; ++i)
    {
        float const expected = reference(x[i], 0.0F);
        bool const close = std::isnan(expected)
            ? std::isnan(fast[i])
            : (std::isinf(expected) ? fast[i] == expected
                                    : std::signbit(fast[i]) == std::signbit(expected)
                        && std::fabs(static_cast<double>(fast[i]) - expected)
                            <= relative * std::fabs(static_cast<double>(expected)) + absolute);
        if (!close)
        {
            ++failures;
            ADD_FAILURE() << "f(" << x[i] << ") = " << fast[i] << ", reference " << expected;
        }
    }
}

void expectWithinTolerance(PointwiseStep const& step)
{
    expectMatchesReference(step, cpu::fast::kVectorRelativeError, cpu::fast::kVectorAbsoluteError);
}

TEST(VectorFunctions, SigmoidIsWithinTheStatedTolerance)
{
    expectWithinTolerance(activationStep(ActivationType::kSIGMOID));
}

TEST(VectorFunctions, TanhIsWithinTheStatedTolerance)
{
    expectWithinTolerance(activationStep(ActivationType::kTANH));
}

TEST(VectorFunctions, ScaledTanhIsWithinTheStatedTolerance)
{
    expectWithinTolerance(activationStep(ActivationType::kSCALED_TANH, 1.7159F, 0.6667F));
}

TEST(VectorFunctions, GeluTanhIsWithinTheStatedTolerance)
{
    expectMatchesReference(activationStep(ActivationType::kGELU_TANH), cpu::fast::kGeluTanhRelativeError,
        cpu::fast::kGeluTanhAbsoluteError);
}

TEST(VectorFunctions, ExpIsWithinTheStatedTolerance)
{
    expectWithinTolerance(expStep());
}

TEST(VectorFunctions, HardSigmoidIsTheReferencesExactly)
{
    // HardSwish's gate (alpha 1/6, beta 1/2) and ONNX's default HardSigmoid (0.2, 0.5); alpha 0 makes 0 * inf NaN,
    // which the reference's std::min turns into 1.
    expectMatchesReference(activationStep(ActivationType::kHARD_SIGMOID, 1.0F / 6.0F, 0.5F), 0.0, 0.0);
    expectMatchesReference(activationStep(ActivationType::kHARD_SIGMOID, 0.2F, 0.5F), 0.0, 0.0);
    expectMatchesReference(activationStep(ActivationType::kHARD_SIGMOID, 0.0F, 0.25F), 0.0, 0.0);
}

TEST(VectorFunctions, ReluLeakyReluAndClipAreTheReferencesExactly)
{
    expectMatchesReference(activationStep(ActivationType::kRELU), 0.0, 0.0);
    expectMatchesReference(activationStep(ActivationType::kLEAKY_RELU, 0.01F), 0.0, 0.0);
    expectMatchesReference(activationStep(ActivationType::kCLIP, 0.0F, 6.0F), 0.0, 0.0);
    expectMatchesReference(activationStep(ActivationType::kCLIP, -1.5F, 0.25F), 0.0, 0.0);
}

TEST(VectorFunctions, RunInPlace)
{
    std::vector<float> values{-3.0F, -0.5F, 0.0F, 0.5F, 3.0F};
    std::vector<float> const copy = values;
    PointwiseStep const step = activationStep(ActivationType::kSIGMOID);
    cpu::fast::evaluateVectorized(step, values.data(), values.data(), static_cast<int64_t>(values.size()));
    cpu::PointwiseFunction const reference(step);
    for (size_t i = 0; i < values.size(); ++i)
    {
        EXPECT_NEAR(values[i], reference(copy[i], 0.0F), 1e-7) << copy[i];
    }
}

TEST(VectorFunctions, LeavesTheRestToTheReference)
{
    EXPECT_FALSE(cpu::fast::vectorizes(activationStep(ActivationType::kGELU_ERF)));
    EXPECT_FALSE(cpu::fast::vectorizes(activationStep(ActivationType::kSOFTPLUS, 1.0F, 1.0F)));
    PointwiseStep sum;
    sum.kind = LayerType::kELEMENTWISE;
    EXPECT_FALSE(cpu::fast::vectorizes(sum));
    PointwiseStep logarithm = expStep();
    logarithm.operation = static_cast<int32_t>(nvinfer1::UnaryOperation::kLOG);
    EXPECT_FALSE(cpu::fast::vectorizes(logarithm));
}

} // namespace
} // namespace kiln::test
