// The fast path's element-wise arithmetic (oneDNN's binary, and Kiln's loops for values along adjacent axes) against
// the reference kernel: every operation it has, with every broadcasting pattern (the second operand, the first, both,
// scalars, one value per index of one inner axis or of several adjacent ones, a block repeated along one axis), odd
// sizes and ranks; the rest stays on the reference; dynamic shapes; thread counts.
#include "one_layer.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::test
{
namespace
{

LayerMaker elementWise(ElementWiseOperation operation)
{
    return [=](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        return network.addElementWise(*inputs[0], *inputs[1], operation);
    };
}

struct Broadcast
{
    char const* name;
    Shape first;
    Shape second;
};

class FastElementWise : public testing::TestWithParam<Broadcast>
{
};

// IEEE arithmetic, maximum and minimum are exact in both.
TEST_P(FastElementWise, MatchesTheReferenceKernel)
{
    Broadcast const& c = GetParam();
    for (ElementWiseOperation operation :
        {ElementWiseOperation::kSUM, ElementWiseOperation::kPROD, ElementWiseOperation::kSUB,
            ElementWiseOperation::kDIV, ElementWiseOperation::kMAX, ElementWiseOperation::kMIN})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(oneLayer({c.first, c.second}, elementWise(operation)),
            {randomInputs({c.first, c.second}, 1)}, Tolerance(0.0), true);
    }
}

INSTANTIATE_TEST_SUITE_P(Patterns, FastElementWise,
    testing::Values(Broadcast{"SameShape", {2, 3, 7, 5}, {2, 3, 7, 5}},
        Broadcast{"PerChannelSecond", {2, 16, 9, 11}, {1, 16, 1, 1}},
        Broadcast{"PerChannelFirst", {1, 16, 1, 1}, {2, 16, 9, 11}},
        Broadcast{"ScalarLikeSecond", {3, 5, 7}, {1, 1, 1}}, Broadcast{"ScalarLikeFirst", {1, 1, 1}, {3, 5, 7}},
        Broadcast{"LastAxisSecond", {4, 6, 33}, {1, 1, 33}}, Broadcast{"MiddleAxisFirst", {5, 1, 3}, {5, 4, 3}},
        Broadcast{"Mutual", {3, 1, 5}, {1, 4, 1}}, Broadcast{"Scalars", {}, {}}, Broadcast{"OneDimensional", {1}, {17}},
        Broadcast{"SixDimensional", {2, 1, 3, 1, 2, 5}, {2, 4, 3, 2, 2, 1}},
        Broadcast{"ResidualAdd", {1, 64, 56, 56}, {1, 64, 56, 56}},
        Broadcast{"InnerAxisSecond", {2, 4, 16, 50}, {1, 1, 16, 1}},
        Broadcast{"InnerAxisFirst", {1, 1, 16, 1}, {2, 4, 16, 50}},
        Broadcast{"AdjacentAxesSecond", {2, 2, 3, 5, 7}, {2, 2, 3, 1, 1}},
        Broadcast{"AdjacentAxesFirst", {1, 2, 6, 1, 1}, {3, 2, 6, 4, 9}},
        Broadcast{"RepeatedAlongAnAxisSecond", {2, 4, 3, 7, 7}, {2, 4, 1, 7, 7}},
        Broadcast{"RepeatedAlongAnAxisFirst", {3, 1, 5, 6}, {3, 4, 5, 6}}),
    [](testing::TestParamInfo<Broadcast> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastElementWise, DivisionByZeroAndInfinitiesAsTheReference)
{
    float const inf = std::numeric_limits<float>::infinity();
    Tensors const inputs{{"a", fromFloats({6}, {1.0F, -1.0F, 0.0F, inf, inf, 3.0F})},
        {"b", fromFloats({6}, {0.0F, 0.0F, 0.0F, inf, 2.0F, -inf})}};
    for (ElementWiseOperation operation :
        {ElementWiseOperation::kDIV, ElementWiseOperation::kSUB, ElementWiseOperation::kPROD})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(oneLayer({{6}, {6}}, elementWise(operation)), {inputs}, Tolerance(0.0), true);
    }
}

TEST(FastElementWise, ADifferenceOfABroadcastFirstOperandRunsSwappedWithTheReferencesBits)
{
    // 1 - m, as a BERT export makes its attention mask: oneDNN's fast kernels take b - a and negate it (its
    // reference implementation, which broadcasts the first operand, ran 100 times slower). The same bits as the
    // reference's, the signs of zeros included (1 - 1 is +0), but for (-0) - (+0), which is -0 and runs as +0.
    float const inf = std::numeric_limits<float>::infinity();
    Shape const first{1, 1, 1};
    Shape const second{2, 3, 4};
    std::vector<float> values = randomTensor(second, 7).floats();
    std::copy_n(
        std::vector<float>{1.0F, 0.0F, -0.0F, inf, -inf, 1.0F + 1e-7F, 3e38F, -3e38F}.begin(), 8, values.begin());
    NetworkMaker const maker = oneLayer({first, second}, elementWise(ElementWiseOperation::kSUB));
    Tensors const inputs{{"a", fromFloats(first, {1.0F})}, {"b", fromFloats(second, values)}};
    std::vector<uint8_t> const fast = buildCpuPlan(maker, CpuKernels::kFAST);
    std::vector<uint8_t> const reference = buildCpuPlan(maker, CpuKernels::kREFERENCE);
    ASSERT_EQ(fastPathLayers(fast), (std::map<std::string, bool>{{"layer", true}}));
    dnnl::set_verbose(1);
    testing::internal::CaptureStdout();
    std::vector<Tensors> const fastResults = runCpuPlan(fast, {inputs});
    std::string const log = testing::internal::GetCapturedStdout();
    dnnl::set_verbose(0);
    std::vector<Tensors> const referenceResults = runCpuPlan(reference, {inputs});
    ASSERT_EQ(fastResults.size(), 1U);
    ASSERT_EQ(referenceResults.size(), 1U);
    EXPECT_EQ(fastResults[0].at("output").bytes, referenceResults[0].at("output").bytes);
    EXPECT_NE(log.find("binary,jit"), std::string::npos) << log;
    EXPECT_EQ(log.find("binary,ref"), std::string::npos) << log;
    // A quotient cannot swap without changing its rounding: it stays on oneDNN's reference implementation.
    NetworkMaker const quotient = oneLayer({first, second}, elementWise(ElementWiseOperation::kDIV));
    expectLayerMatches(quotient, {inputs}, Tolerance(0.0), true);
}

TEST(FastElementWise, APowerByAConstantTwoRunsAsASquareWithTheReferencesBits)
{
    // RMSNorm's x^2 as T5's and LLaMA's exports write it: x * x on the fast path, bit for bit the reference's square
    // (a tie rounded to even, zeros, infinities, NaN, overflow and squares below FLT_MIN included). A power by a
    // constant 3 stays on the reference.
    float const inf = std::numeric_limits<float>::infinity();
    Shape const shape{2, 3, 7};
    std::vector<float> values = randomTensor(shape, 3).floats();
    std::transform(values.begin(), values.end(), values.begin(), [](float v) { return v * 300.0F; });
    std::copy_n(std::vector<float>{0.0F, -0.0F, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 3e19F, -1.5e-19F,
                    1e-10F, 1.0F + std::ldexp(1.0F, -12), std::ldexp(1.5F, -74)}
                    .begin(),
        10, values.begin());
    for (float exponent : {2.0F, 3.0F})
    {
        SCOPED_TRACE(exponent);
        NetworkMaker const maker = [exponent](INetworkDefinition& network) {
            ITensor* base = network.addInput("a", DataType::kFLOAT, dimsOf({2, 3, 7}));
            IConstantLayer* power = network.addConstant(dimsOf({1, 1, 1}), Weights{DataType::kFLOAT, &exponent, 1});
            power->setName("exponent");
            ILayer* layer = network.addElementWise(*base, *power->getOutput(0), ElementWiseOperation::kPOW);
            layer->setName("layer");
            layer->getOutput(0)->setName("output");
            network.markOutput(*layer->getOutput(0));
        };
        std::map<std::string, bool> const layers
            = expectFastMatchesReference(maker, {Tensors{{"a", fromFloats(shape, values)}}}, Tolerance(0.0));
        EXPECT_EQ(layersNamed(layers, {"layer"}), (std::map<std::string, bool>{{"layer", exponent == 2.0F}}));
    }
}

TEST(FastElementWiseFallback, PowerFloorDivisionComparisonsAndIntegersStayOnTheReference)
{
    Shape const shape{2, 3, 4};
    Tensors inputs = randomInputs({shape, shape}, 2);
    // Positive bases keep the power real.
    std::vector<float> bases = inputs.at("a").floats();
    for (float& base : bases)
    {
        base = std::fabs(base) + 0.5F;
    }
    inputs["a"] = fromFloats(shape, bases);
    for (ElementWiseOperation operation : {ElementWiseOperation::kPOW, ElementWiseOperation::kFLOOR_DIV,
             ElementWiseOperation::kLESS, ElementWiseOperation::kEQUAL})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(oneLayer({shape, shape}, elementWise(operation)), {inputs}, Tolerance(0.0), false);
    }
    auto integers = [](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kINT32, dimsOf({4}));
        ITensor* b = network.addInput("b", DataType::kINT32, dimsOf({4}));
        ILayer* layer = network.addElementWise(*a, *b, ElementWiseOperation::kSUM);
        layer->setName("layer");
        layer->getOutput(0)->setName("output");
        network.markOutput(*layer->getOutput(0));
    };
    Tensors const integerInputs{
        {"a", fromInts({4}, {1, -2, 3, 7}, DataType::kINT32)}, {"b", fromInts({4}, {5, 6, -7, 8}, DataType::kINT32)}};
    expectLayerMatches(integers, {integerInputs}, Tolerance(0.0), false);
}

TEST(FastElementWiseShapes, BroadcastingThatChangesWithTheShapesRuns)
{
    // Either operand may be the broadcast one from run to run.
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        for (char const* name : {"a", "b"})
        {
            shapes->setDimensions(name, OptProfileSelector::kMIN, Dims3{1, 1, 5});
            shapes->setDimensions(name, OptProfileSelector::kOPT, Dims3{3, 4, 5});
            shapes->setDimensions(name, OptProfileSelector::kMAX, Dims3{6, 8, 5});
        }
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{randomInputs({{3, 4, 5}, {3, 4, 5}}, 3), randomInputs({{3, 1, 5}, {3, 4, 5}}, 4),
        randomInputs({{6, 8, 5}, {1, 8, 5}}, 5), randomInputs({{1, 8, 5}, {6, 1, 5}}, 6),
        randomInputs({{3, 4, 5}, {3, 4, 5}}, 7)};
    for (ElementWiseOperation operation : {ElementWiseOperation::kSUM, ElementWiseOperation::kDIV})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(
            oneLayer({{-1, -1, 5}, {-1, -1, 5}}, elementWise(operation)), runs, Tolerance(0.0), true, profile);
    }
}

TEST(FastElementWiseThreads, EveryThreadCountGivesTheSameBits)
{
    Shape const shape{2, 64, 56, 56};
    for (ElementWiseOperation operation : {ElementWiseOperation::kSUM, ElementWiseOperation::kDIV})
    {
        expectSameBitsAtEveryThreadCount(
            oneLayer({shape, {1, 64, 1, 1}}, elementWise(operation)), randomInputs({shape, {1, 64, 1, 1}}, 8));
    }
}

} // namespace
} // namespace kiln::test
