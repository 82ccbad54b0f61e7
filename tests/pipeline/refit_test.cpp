// Refit on the CPU backend: an engine built with BuilderFlag::kREFIT (or kREFIT_INDIVIDUAL and markWeightsRefittable)
// takes new weights through IRefitter, by name (setNamedWeights) or by layer and role (setWeights), and its contexts,
// old and new, then compute with them, as does the plan it serializes. The network is a 1x1 convolution, a
// per-channel scale, a ReLU and the sum with a constant: the fast path would fold the scale into the convolution and
// the ReLU into it, which refittable weights forbid. Every result is checked against the network computed here from
// its definition with the weights of the moment.
#include "../layers/layer_harness.h"

#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

constexpr int64_t kChannels = 2;
constexpr int64_t kPixels = 4; // a 2x2 image
Dims const kImage{4, {1, kChannels, 2, 2}};
std::vector<float> const kInput{0.5F, -1.0F, 2.0F, 0.25F, 1.5F, -0.75F, 0.0F, 3.0F};

//! Every weight of the network, by the name setWeightsName gives it.
using WeightSet = std::map<std::string, std::vector<float>>;

WeightSet original()
{
    return {{"conv.weight", {1.0F, 0.5F, -1.0F, 2.0F}}, {"conv.bias", {0.1F, -0.2F}}, {"bn.shift", {0.0F, 0.5F}},
        {"bn.scale", {1.0F, 2.0F}}, {"offset", {10.0F, 20.0F}}};
}

WeightSet replacement()
{
    return {{"conv.weight", {-0.5F, 1.5F, 0.25F, -2.0F}}, {"conv.bias", {1.0F, 2.0F}}, {"bn.shift", {-1.0F, 0.25F}},
        {"bn.scale", {3.0F, -1.0F}}, {"offset", {-5.0F, 7.0F}}};
}

//! The network's output from its definition: y = relu((conv(x) * scale + shift)) + offset, per channel.
std::vector<float> expected(WeightSet const& w)
{
    std::vector<float> y(kChannels * kPixels);
    for (int64_t o = 0; o < kChannels; ++o)
    {
        for (int64_t p = 0; p < kPixels; ++p)
        {
            float conv = w.at("conv.bias")[o];
            for (int64_t i = 0; i < kChannels; ++i)
            {
                conv += w.at("conv.weight")[o * kChannels + i] * kInput[i * kPixels + p];
            }
            float const scaled = conv * w.at("bn.scale")[o] + w.at("bn.shift")[o];
            y[o * kPixels + p] = std::max(scaled, 0.0F) + w.at("offset")[o];
        }
    }
    return y;
}

Weights weightsOf(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! The network with `weights` (which it points at until it is built), each named after its key.
std::unique_ptr<LayerHarness> network(
    WeightSet const& weights, kiln::CpuKernels kernels, std::function<void(LayerHarness&)> const& configure)
{
    auto h = std::make_unique<LayerHarness>();
    INetworkDefinition& n = *h->network;
    ITensor* x = n.addInput("x", DataType::kFLOAT, kImage);
    IConvolutionLayer* conv = n.addConvolutionNd(
        *x, kChannels, Dims{2, {1, 1}}, weightsOf(weights.at("conv.weight")), weightsOf(weights.at("conv.bias")));
    conv->setName("conv");
    IScaleLayer* bn = n.addScale(*conv->getOutput(0), ScaleMode::kCHANNEL, weightsOf(weights.at("bn.shift")),
        weightsOf(weights.at("bn.scale")), Weights{DataType::kFLOAT, nullptr, 0});
    bn->setName("bn");
    IActivationLayer* relu = n.addActivation(*bn->getOutput(0), ActivationType::kRELU);
    IConstantLayer* offset = n.addConstant(Dims{4, {1, kChannels, 1, 1}}, weightsOf(weights.at("offset")));
    offset->setName("offset");
    h->output(n.addElementWise(*relu->getOutput(0), *offset->getOutput(0), ElementWiseOperation::kSUM), "y");
    for (auto const& [name, values] : weights)
    {
        EXPECT_TRUE(n.setWeightsName(weightsOf(values), name.c_str())) << h->logger.errors();
    }
    kiln::setCpuKernels(*h->config, kernels);
    configure(*h);
    EXPECT_TRUE(h->build());
    return h;
}

std::vector<float> run(IExecutionContext& context)
{
    std::vector<float> y(kChannels * kPixels);
    EXPECT_TRUE(context.setTensorAddress("x", const_cast<float*>(kInput.data())));
    EXPECT_TRUE(context.setTensorAddress("y", y.data()));
    EXPECT_TRUE(context.enqueueV3(nullptr));
    return y;
}

void expectValues(std::vector<float> const& actual, std::vector<float> const& wanted, std::string const& what)
{
    ASSERT_EQ(actual.size(), wanted.size()) << what;
    for (size_t i = 0; i < wanted.size(); ++i)
    {
        EXPECT_NEAR(actual[i], wanted[i], 1e-5F) << what << " element " << i;
    }
}

std::unique_ptr<IRefitter> refitterOf(LayerHarness& h)
{
    return std::unique_ptr<IRefitter>(createInferRefitter(*h.engine, h.logger));
}

class Refit : public ::testing::TestWithParam<kiln::CpuKernels>
{
};

TEST_P(Refit, EveryWeightByNameReachesOldAndNewContextsAndThePlan)
{
    WeightSet const before = original();
    auto h = network(before, GetParam(), [](LayerHarness& harness) { harness.config->setFlag(BuilderFlag::kREFIT); });
    ASSERT_TRUE(h->engine->isRefittable());
    expectValues(run(*h->context), expected(before), "before the refit");
    if (GetParam() == kiln::CpuKernels::kFAST)
    {
        // Without refit the scale and the ReLU fold into the convolution; refittable weights keep them apart.
        auto const plain = network(before, GetParam(), [](LayerHarness&) {});
        EXPECT_LT(plain->engine->getNbLayers(), h->engine->getNbLayers());
    }

    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr) << h->logger.errors();
    int32_t const count = refitter->getAllWeights(0, nullptr);
    std::vector<char const*> names(static_cast<size_t>(count));
    refitter->getAllWeights(count, names.data());
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()),
        (std::set<std::string>{"conv.weight", "conv.bias", "bn.shift", "bn.scale", "offset"}));
    std::vector<char const*> layers(5);
    std::vector<WeightsRole> roles(5);
    ASSERT_EQ(refitter->getAll(5, layers.data(), roles.data()), 5);
    EXPECT_EQ(std::set<WeightsRole>(roles.begin(), roles.end()),
        (std::set<WeightsRole>{WeightsRole::kKERNEL, WeightsRole::kBIAS, WeightsRole::kSHIFT, WeightsRole::kSCALE,
            WeightsRole::kCONSTANT}));
    Weights const prototype = refitter->getWeightsPrototype("conv.weight");
    EXPECT_EQ(prototype.count, 4);
    EXPECT_EQ(prototype.type, DataType::kFLOAT);

    WeightSet const after = replacement();
    for (auto const& [name, values] : after)
    {
        ASSERT_TRUE(refitter->setNamedWeights(name.c_str(), weightsOf(values))) << h->logger.errors();
    }
    EXPECT_EQ(refitter->getNamedWeights("offset").values, after.at("offset").data());
    EXPECT_EQ(refitter->getMissingWeights(0, nullptr), 0);
    ASSERT_TRUE(refitter->refitCudaEngine());

    expectValues(run(*h->context), expected(after), "the context made before the refit");
    std::unique_ptr<IExecutionContext> fresh{h->engine->createExecutionContext()};
    expectValues(run(*fresh), expected(after), "a context made after the refit");
    std::unique_ptr<IHostMemory> plan{h->engine->serialize()};
    std::unique_ptr<ICudaEngine> reloaded{h->runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(reloaded, nullptr);
    EXPECT_TRUE(reloaded->isRefittable());
    std::unique_ptr<IExecutionContext> context{reloaded->createExecutionContext()};
    expectValues(run(*context), expected(after), "the plan serialized after the refit");
}

TEST_P(Refit, WeightsByLayerAndRoleAloneChangeOnlyThemselves)
{
    WeightSet weights = original();
    auto h = network(weights, GetParam(), [](LayerHarness& harness) { harness.config->setFlag(BuilderFlag::kREFIT); });
    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr);
    weights["bn.scale"] = {-2.0F, 0.5F};
    ASSERT_TRUE(refitter->setWeights("bn", WeightsRole::kSCALE, weightsOf(weights["bn.scale"])));
    ASSERT_TRUE(refitter->refitCudaEngine());
    expectValues(run(*h->context), expected(weights), "after the scale's refit");
}

TEST_P(Refit, IndividualRefitTouchesOnlyTheMarkedWeights)
{
    WeightSet weights = original();
    auto h = network(weights, GetParam(), [](LayerHarness& harness) {
        EXPECT_TRUE(harness.network->markWeightsRefittable("conv.weight"));
        EXPECT_TRUE(harness.network->areWeightsMarkedRefittable("conv.weight"));
        EXPECT_FALSE(harness.network->areWeightsMarkedRefittable("bn.scale"));
        harness.config->setFlag(BuilderFlag::kREFIT_INDIVIDUAL);
    });
    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr) << h->logger.errors();
    EXPECT_EQ(refitter->getAllWeights(0, nullptr), 1);
    EXPECT_FALSE(refitter->setNamedWeights("bn.scale", weightsOf({1.0F, 1.0F})));
    EXPECT_NE(h->logger.errors().find("no refittable weights named \"bn.scale\""), std::string::npos);
    weights["conv.weight"] = {0.0F, 1.0F, 1.0F, 0.0F};
    ASSERT_TRUE(refitter->setNamedWeights("conv.weight", weightsOf(weights["conv.weight"])));
    ASSERT_TRUE(refitter->refitCudaEngine());
    expectValues(run(*h->context), expected(weights), "after the kernel's refit");
}

TEST_P(Refit, StrippedPlanAloneIsRefittableWithTheBuildWeights)
{
    // TensorRT's weight-stripping flow sets only kSTRIP_PLAN, then refits every weight (from the ONNX model).
    WeightSet weights = original();
    auto h = network(
        weights, GetParam(), [](LayerHarness& harness) { harness.config->setFlag(BuilderFlag::kSTRIP_PLAN); });
    ASSERT_TRUE(h->engine->isRefittable()) << h->logger.errors();
    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr) << h->logger.errors();
    EXPECT_EQ(refitter->getAllWeights(0, nullptr), 5);
    for (auto const& [name, values] : weights)
    {
        ASSERT_TRUE(refitter->setNamedWeights(name.c_str(), weightsOf(values))) << h->logger.errors();
    }
    ASSERT_TRUE(refitter->refitCudaEngine());
    expectValues(run(*h->context), expected(weights), "after refitting the build's weights");
}

TEST_P(Refit, StrippedPlanWithIndividualRefitKeepsOnlyTheMarkedWeights)
{
    auto h = network(original(), GetParam(), [](LayerHarness& harness) {
        EXPECT_TRUE(harness.network->markWeightsRefittable("offset"));
        harness.config->setFlag(BuilderFlag::kSTRIP_PLAN);
        harness.config->setFlag(BuilderFlag::kREFIT_INDIVIDUAL);
    });
    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr) << h->logger.errors();
    EXPECT_EQ(refitter->getAllWeights(0, nullptr), 1);
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, Refit, ::testing::Values(kiln::CpuKernels::kREFERENCE, kiln::CpuKernels::kFAST),
    [](::testing::TestParamInfo<kiln::CpuKernels> const& param) {
        return param.param == kiln::CpuKernels::kFAST ? std::string("Fast") : std::string("Reference");
    });

TEST(RefitErrors, WrongWeightsAreRefusedAndTheEngineKeepsItsOwn)
{
    WeightSet const weights = original();
    auto h = network(
        weights, kiln::CpuKernels::kFAST, [](LayerHarness& harness) { harness.config->setFlag(BuilderFlag::kREFIT); });
    std::unique_ptr<IRefitter> refitter = refitterOf(*h);
    ASSERT_NE(refitter, nullptr);
    std::vector<float> const three{1.0F, 2.0F, 3.0F};
    EXPECT_FALSE(refitter->setNamedWeights("conv.bias", weightsOf(three)));
    EXPECT_NE(
        h->logger.errors().find("weights \"conv.bias\" holds 2 values; the weights given have 3"), std::string::npos)
        << h->logger.errors();
    std::vector<int32_t> const integers{1, 2};
    EXPECT_FALSE(refitter->setNamedWeights("conv.bias", Weights{DataType::kINT32, integers.data(), 2}));
    EXPECT_FALSE(refitter->setNamedWeights("no such weights", weightsOf(three)));
    EXPECT_FALSE(refitter->setWeights("conv", WeightsRole::kSCALE, weightsOf(three)));
    EXPECT_NE(h->logger.errors().find("layer \"conv\" has no refittable kSCALE weights"), std::string::npos);
    EXPECT_FALSE(refitter->setNamedWeights("conv.bias", weightsOf({1.0F, 2.0F}), TensorLocation::kDEVICE));
    EXPECT_FALSE(refitter->unsetNamedWeights("offset"));
    ASSERT_TRUE(refitter->setNamedWeights("offset", weightsOf({0.0F, 0.0F})));
    EXPECT_TRUE(refitter->unsetNamedWeights("offset"));
    ASSERT_TRUE(refitter->refitCudaEngine()); // nothing staged: nothing changes
    expectValues(run(*h->context), expected(weights), "after refused refits");
}

TEST(RefitErrors, EngineBuiltWithoutRefitHasNoRefitter)
{
    auto h = network(original(), kiln::CpuKernels::kFAST, [](LayerHarness&) {});
    EXPECT_FALSE(h->engine->isRefittable());
    EXPECT_EQ(refitterOf(*h), nullptr);
    EXPECT_NE(h->logger.errors().find("createInferRefitter: the engine is not refittable"), std::string::npos);
    EXPECT_FALSE(h->network->markWeightsRefittable("no such weights"));
    EXPECT_FALSE(h->network->unmarkWeightsRefittable("conv.weight"));
}

} // namespace
