// Debug tensors on the CPU backend: a tensor marked with INetworkDefinition::markDebug survives the build as itself
// (the fast path's fusions leave it alone), and a context whose debug state is on gives its values to the
// IDebugListener after the layer writing it has run; markUnfusedTensorsAsDebugTensors makes every tensor the plan
// keeps in memory one. The values are checked against a 1x1 convolution computed here from its definition.
#include "../layers/layer_harness.h"
#include "plan/plan_format.h"

#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

constexpr int64_t kChannels = 3;
constexpr int64_t kPixels = 4; // a 2x2 image
Dims const kImage{4, {1, kChannels, 2, 2}};

std::vector<float> const kInput{0.5F, -1.0F, 2.0F, 0.25F, 1.5F, -0.75F, 0.0F, 3.0F, -2.0F, 1.0F, 0.5F, -1.5F};
std::vector<float> const kKernel{1.0F, 0.5F, -1.0F, -0.5F, 2.0F, 0.25F, 0.0F, -1.0F, 1.5F}; // [out][in]
std::vector<float> const kBias{0.1F, -0.2F, 0.3F};

//! The 1x1 convolution of kInput, from its definition: out[o][p] = bias[o] + sum over i of kernel[o][i] * in[i][p].
std::vector<float> convolved()
{
    std::vector<float> out(kChannels * kPixels);
    for (int64_t o = 0; o < kChannels; ++o)
    {
        for (int64_t p = 0; p < kPixels; ++p)
        {
            float sum = kBias[o];
            for (int64_t i = 0; i < kChannels; ++i)
            {
                sum += kKernel[o * kChannels + i] * kInput[i * kPixels + p];
            }
            out[o * kPixels + p] = sum;
        }
    }
    return out;
}

//! What the listener was given, by tensor name, in the order it was given.
struct Received
{
    std::vector<float> values;
    Dims shape{};
    DataType type{DataType::kINT8};
    TensorLocation location{TensorLocation::kDEVICE};
};

class RecordingListener : public IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t /*stream*/) override
    {
        if (failWith == "throw")
        {
            throw std::runtime_error("the listener's disk is full");
        }
        order.emplace_back(name);
        Received& r = received[name];
        r.shape = shape;
        r.type = type;
        r.location = location;
        int64_t count = 1;
        for (int32_t a = 0; a < shape.nbDims; ++a)
        {
            count *= shape.d[a];
        }
        r.values.resize(static_cast<size_t>(count));
        if (type == DataType::kFLOAT) // host memory on the CPU backend
        {
            std::memcpy(r.values.data(), addr, r.values.size() * sizeof(float));
        }
        return failWith != "false";
    }

    std::map<std::string, Received> received;
    std::vector<std::string> order;
    std::string failWith;
};

//! x -> 1x1 convolution "conv" -> ReLU "relu" -> + x "sum" -> softmax over channels "y" (the output). The fast path
//! fuses the convolution, the ReLU and the sum into one layer.
std::unique_ptr<LayerHarness> network(
    kiln::CpuKernels kernels, std::vector<char const*> const& debugTensors, bool unfusedAreDebug = false)
{
    auto h = std::make_unique<LayerHarness>();
    INetworkDefinition& n = *h->network;
    ITensor* x = n.addInput("x", DataType::kFLOAT, kImage);
    IConvolutionLayer* conv = n.addConvolutionNd(*x, kChannels, Dims{2, {1, 1}},
        Weights{DataType::kFLOAT, kKernel.data(), static_cast<int64_t>(kKernel.size())},
        Weights{DataType::kFLOAT, kBias.data(), static_cast<int64_t>(kBias.size())});
    conv->getOutput(0)->setName("conv");
    IActivationLayer* relu = n.addActivation(*conv->getOutput(0), ActivationType::kRELU);
    relu->getOutput(0)->setName("relu");
    IElementWiseLayer* sum = n.addElementWise(*relu->getOutput(0), *x, ElementWiseOperation::kSUM);
    sum->getOutput(0)->setName("sum");
    ISoftMaxLayer* softmax = n.addSoftMax(*sum->getOutput(0));
    softmax->setAxes(1U << 1);
    h->output(softmax, "y");
    std::map<std::string, ITensor*> const tensors{
        {"x", x}, {"conv", conv->getOutput(0)}, {"relu", relu->getOutput(0)}, {"sum", sum->getOutput(0)}};
    for (char const* name : debugTensors)
    {
        EXPECT_TRUE(n.markDebug(*tensors.at(name))) << h->logger.errors();
        EXPECT_TRUE(n.isDebugTensor(*tensors.at(name)));
    }
    if (unfusedAreDebug)
    {
        EXPECT_TRUE(n.markUnfusedTensorsAsDebugTensors());
    }
    kiln::setCpuKernels(*h->config, kernels);
    EXPECT_TRUE(h->build());
    return h;
}

//! Runs once; the output is y.
bool run(LayerHarness& h)
{
    std::vector<float> y(kInput.size());
    return h.run({{"x", kInput.data()}}, {{"y", y.data()}});
}

kiln::plan::PlanModel planOf(LayerHarness const& h)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    return model;
}

bool hasTensorInMemory(kiln::plan::PlanModel const& model, std::string const& name)
{
    return std::any_of(model.tensors.begin(), model.tensors.end(),
        [&](kiln::plan::TensorRecord const& t) { return t.name == name && (t.arenaOffset >= 0 || t.viewOf >= 0); });
}

void expectValues(std::vector<float> const& actual, std::vector<float> const& expected, std::string const& what)
{
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], 1e-5F) << what << " element " << i;
    }
}

class DebugTensors : public ::testing::TestWithParam<kiln::CpuKernels>
{
};

TEST_P(DebugTensors, MarkedTensorReachesTheListenerWithItsValuesAfterItsLayer)
{
    auto h = network(GetParam(), {"conv", "x"});
    // The fusion that would have folded the ReLU and the sum into the convolution leaves "conv" in memory.
    EXPECT_TRUE(hasTensorInMemory(planOf(*h), "conv"));
    EXPECT_TRUE(h->engine->isDebugTensor("conv"));
    EXPECT_TRUE(h->engine->isDebugTensor("x"));
    EXPECT_FALSE(h->engine->isDebugTensor("relu"));

    RecordingListener listener;
    ASSERT_TRUE(h->context->setDebugListener(&listener));
    EXPECT_EQ(h->context->getDebugListener(), &listener);
    EXPECT_FALSE(h->context->getDebugState("conv")); // off until the application turns it on
    ASSERT_TRUE(run(*h));
    EXPECT_TRUE(listener.order.empty());

    ASSERT_TRUE(h->context->setAllTensorsDebugState(true));
    EXPECT_TRUE(h->context->getDebugState("conv"));
    ASSERT_TRUE(run(*h));
    EXPECT_EQ(listener.order, (std::vector<std::string>{"x", "conv"})); // the input first, then as layers run
    Received const& conv = listener.received.at("conv");
    EXPECT_EQ(conv.type, DataType::kFLOAT);
    EXPECT_EQ(conv.location, TensorLocation::kHOST);
    ASSERT_EQ(conv.shape.nbDims, 4);
    EXPECT_EQ(conv.shape.d[1], kChannels);
    expectValues(conv.values, convolved(), "conv");
    expectValues(listener.received.at("x").values, kInput, "x");

    // One tensor off: the other is still given.
    listener.order.clear();
    ASSERT_TRUE(h->context->setTensorDebugState("x", false));
    EXPECT_FALSE(h->context->getDebugState("x"));
    ASSERT_TRUE(run(*h));
    EXPECT_EQ(listener.order, (std::vector<std::string>{"conv"}));
}

TEST_P(DebugTensors, UnfusedTensorsAreTheOnesThePlanKeepsInMemory)
{
    auto h = network(GetParam(), {}, true);
    RecordingListener listener;
    h->context->setDebugListener(&listener);
    ASSERT_TRUE(run(*h));
    EXPECT_TRUE(listener.order.empty());
    EXPECT_FALSE(h->context->getUnfusedTensorsDebugState());

    ASSERT_TRUE(h->context->setUnfusedTensorsDebugState(true));
    EXPECT_TRUE(h->context->getUnfusedTensorsDebugState());
    ASSERT_TRUE(run(*h));
    kiln::plan::PlanModel const model = planOf(*h);
    for (char const* name : {"conv", "relu", "sum"})
    {
        EXPECT_EQ(listener.received.count(name), hasTensorInMemory(model, name) ? 1U : 0U) << name;
    }
    EXPECT_EQ(listener.received.count("y"), 0U); // an output, not a debug tensor
    ASSERT_EQ(listener.received.count("sum"), 1U);
    std::vector<float> expected = convolved();
    for (size_t i = 0; i < expected.size(); ++i)
    {
        expected[i] = std::max(expected[i], 0.0F) + kInput[i];
    }
    expectValues(listener.received.at("sum").values, expected, "sum");
    if (GetParam() == kiln::CpuKernels::kFAST)
    {
        EXPECT_EQ(listener.received.count("conv"), 0U) << "the fast path fused the convolution's output away";
    }
    else
    {
        expectValues(listener.received.at("conv").values, convolved(), "conv");
    }
}

TEST_P(DebugTensors, FailingListenerFailsTheRunNamingTheTensor)
{
    auto h = network(GetParam(), {"relu"});
    RecordingListener listener;
    h->context->setDebugListener(&listener);
    ASSERT_TRUE(h->context->setTensorDebugState("relu", true));
    std::vector<float> y(kInput.size());
    ASSERT_TRUE(h->context->setTensorAddress("x", const_cast<float*>(kInput.data())));
    ASSERT_TRUE(h->context->setTensorAddress("y", y.data()));

    listener.failWith = "false";
    EXPECT_FALSE(h->context->enqueueV3(nullptr));
    EXPECT_NE(h->logger.errors().find("the IDebugListener's processDebugTensor for \"relu\" returned false"),
        std::string::npos)
        << h->logger.errors();
    listener.failWith = "throw";
    EXPECT_FALSE(h->context->enqueueV3(nullptr));
    EXPECT_NE(
        h->logger.errors().find("processDebugTensor for \"relu\" threw an exception: the listener's disk is full"),
        std::string::npos)
        << h->logger.errors();
    listener.failWith.clear();
    EXPECT_TRUE(h->context->enqueueV3(nullptr)) << "the context is usable after a failed run";
}

INSTANTIATE_TEST_SUITE_P(CpuKernels, DebugTensors,
    ::testing::Values(kiln::CpuKernels::kREFERENCE, kiln::CpuKernels::kFAST),
    [](::testing::TestParamInfo<kiln::CpuKernels> const& param) {
        return param.param == kiln::CpuKernels::kFAST ? std::string("Fast") : std::string("Reference");
    });

TEST(DebugTensorsApi, WrongNamesAndForeignTensorsAreErrors)
{
    auto h = network(kiln::CpuKernels::kREFERENCE, {"conv"});
    EXPECT_FALSE(h->context->setTensorDebugState("relu", true));
    EXPECT_NE(h->logger.errors().find("setTensorDebugState: \"relu\" is not a debug tensor"), std::string::npos);
    EXPECT_FALSE(h->context->setTensorDebugState(nullptr, true));
    EXPECT_FALSE(h->context->getDebugState("no such tensor"));

    LayerHarness other;
    ITensor* foreign = other.network->addInput("foreign", DataType::kFLOAT, kImage);
    EXPECT_FALSE(h->network->markDebug(*foreign));
    // Kiln logs to the logger of the builder made last.
    EXPECT_NE(
        other.logger.errors().find("markDebug: tensor \"foreign\" does not belong to this network"), std::string::npos);
    EXPECT_FALSE(h->network->unmarkDebug(*foreign));
    ITensor* x = h->network->getInput(0);
    EXPECT_FALSE(h->network->unmarkDebug(*x));
    EXPECT_TRUE(h->network->markDebug(*x));
    EXPECT_TRUE(h->network->unmarkDebug(*x));
    EXPECT_FALSE(h->network->isDebugTensor(*x));
}

} // namespace
