// TensorRT 10's network-definition calls that Kiln added last, used as an application uses them (C++17, -Wall
// -Wextra -Werror) and run on the CPU backend against hand-computed values: addSqueeze and addUnsqueeze (run as
// shuffles), addParametricReLU (a point-wise program), ITensor's dynamic range, IFillLayer's int64 values and the
// calls Kiln refuses (TensorRT's failure value and one error naming the call), the algorithm selector among them.
// network_surface_test.cpp checks that every declaration of these classes is there, with TensorRT's types.
#include <NvInfer.h>
#include <kiln/Backend.h>

#include "cpu_network_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

using kiln::test::CpuNetworkTest;

Dims dims(std::vector<int64_t> const& extents)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(extents.size());
    std::copy(extents.begin(), extents.end(), d.d);
    return d;
}

std::vector<int64_t> extents(Dims const& d)
{
    return std::vector<int64_t>(d.d, d.d + std::max(d.nbDims, 0));
}

class NetworkApi : public CpuNetworkTest
{
protected:
    ITensor& axesConstant(std::vector<int32_t> const& axes)
    {
        mAxes.push_back(axes);
        Weights w{DataType::kINT32, mAxes.back().data(), static_cast<int64_t>(mAxes.back().size())};
        return *network->addConstant(dims({static_cast<int64_t>(axes.size())}), w)->getOutput(0);
    }

    //! Builds the network, runs it on `inputs` (name, values) and returns output "y".
    std::vector<float> run(std::vector<std::pair<char const*, std::vector<float>>> inputs, size_t outputCount)
    {
        std::unique_ptr<ICudaEngine> engine = buildEngine();
        if (!engine)
        {
            return {};
        }
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        for (auto& [name, values] : inputs)
        {
            EXPECT_TRUE(context->setInputTensorAddress(name, values.data()));
        }
        std::vector<float> y(outputCount, -100.0F);
        EXPECT_TRUE(context->setOutputTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr));
        return y;
    }

    std::vector<std::vector<int32_t>> mAxes;
};

TEST_F(NetworkApi, SqueezeRemovesTheUnitAxesAndKeepsTheOrder)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 1, 3, 1}));
    ISqueezeLayer* squeeze = network->addSqueeze(*x, axesConstant({-1, 1}));
    ASSERT_NE(squeeze, nullptr);
    EXPECT_EQ(squeeze->getType(), LayerType::kSQUEEZE);
    EXPECT_EQ(squeeze->getNbInputs(), 2);
    ITensor* y = squeeze->getOutput(0);
    EXPECT_EQ(extents(y->getDimensions()), (std::vector<int64_t>{2, 3}));
    y->setName("y");
    network->markOutput(*y);
    std::vector<float> const values{1, 2, 3, 4, 5, 6};
    EXPECT_EQ(run({{"x", values}}, 6), values); // unit axes hold no data: the order is unchanged
}

TEST_F(NetworkApi, UnsqueezeInsertsUnitAxesWhereTheAxesSay)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 3}));
    IUnsqueezeLayer* unsqueeze = network->addUnsqueeze(*x, axesConstant({0, 3}));
    ASSERT_NE(unsqueeze, nullptr);
    EXPECT_EQ(unsqueeze->getType(), LayerType::kUNSQUEEZE);
    ITensor* y = unsqueeze->getOutput(0);
    EXPECT_EQ(extents(y->getDimensions()), (std::vector<int64_t>{1, 2, 3, 1}));
    // Replacing the axes derives the shuffle again: a unit axis in the middle.
    unsqueeze->setInput(1, axesConstant({-2}));
    EXPECT_EQ(extents(y->getDimensions()), (std::vector<int64_t>{2, 1, 3}));
    y->setName("y");
    network->markOutput(*y);
    std::vector<float> const values{1, 2, 3, 4, 5, 6};
    EXPECT_EQ(run({{"x", values}}, 6), values);
}

TEST_F(NetworkApi, SqueezeAndUnsqueezeRefuseAxesThatDoNotFit)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 1}));
    EXPECT_EQ(network->addSqueeze(*x, axesConstant({2})), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addSqueeze: axis 2 is outside [-2, 2)"), 1U);
    EXPECT_EQ(network->addSqueeze(*x, axesConstant({1, -1})), nullptr);
    EXPECT_EQ(logger.take("is given twice"), 1U);
    // An extent that is not 1 fails when shapes are inferred, naming the layer.
    EXPECT_EQ(network->addSqueeze(*x, axesConstant({0})), nullptr);
    EXPECT_GE(logger.take("INetworkDefinition::addSqueeze"), 1U);
    // Axes that are not a constant: Kiln must know them when the layer is added.
    ITensor* runtimeAxes = network->addInput("axes", DataType::kINT32, dims({1}));
    EXPECT_EQ(network->addUnsqueeze(*x, *runtimeAxes), nullptr);
    EXPECT_EQ(logger.take("must be the output of an IConstantLayer"), 1U);
}

TEST_F(NetworkApi, ParametricReLUScalesNegativesByTheBroadcastSlope)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 3}));
    // One slope per row (extent 1 along the columns): 0.5 for row 0, -2 for row 1.
    std::vector<float> slopeValues{0.5F, -2.0F};
    Weights w{DataType::kFLOAT, slopeValues.data(), 2};
    ITensor* slope = network->addConstant(dims({2, 1}), w)->getOutput(0);
    IParametricReLULayer* prelu = network->addParametricReLU(*x, *slope);
    ASSERT_NE(prelu, nullptr);
    EXPECT_EQ(prelu->getType(), LayerType::kPARAMETRIC_RELU);
    prelu->getOutput(0)->setName("y");
    network->markOutput(*prelu->getOutput(0));
    std::vector<float> const y = run({{"x", {-4, 0, 3, -1.5F, 2, -0.25F}}}, 6);
    EXPECT_EQ(y, (std::vector<float>{-2, 0, 3, 3, 2, 0.5F}));
}

TEST_F(NetworkApi, ParametricReLURefusesASlopeThatDoesNotBroadcast)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 3}));
    std::vector<float> slopeValues{1, 2};
    Weights w{DataType::kFLOAT, slopeValues.data(), 2};
    EXPECT_EQ(network->addParametricReLU(*x, *network->addConstant(dims({1, 2}), w)->getOutput(0)), nullptr);
    EXPECT_EQ(logger.take("neither 1 nor the input's 3"), 1U);
    EXPECT_EQ(network->addParametricReLU(*x, *network->addConstant(dims({2}), w)->getOutput(0)), nullptr);
    EXPECT_EQ(logger.take("give the slope the input's rank"), 1U);
}

TEST_F(NetworkApi, TensorKeepsItsDynamicRangeAndStaysOnTheDevice)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2}));
    EXPECT_FALSE(x->dynamicRangeIsSet());
    EXPECT_TRUE(std::isnan(x->getDynamicRangeMin()));
    EXPECT_FALSE(x->setDynamicRange(2.0F, 1.0F));
    EXPECT_EQ(logger.take("ITensor::setDynamicRange"), 1U);
    EXPECT_TRUE(x->setDynamicRange(-3.0F, 5.0F));
    EXPECT_EQ(x->getDynamicRangeMin(), -3.0F);
    EXPECT_EQ(x->getDynamicRangeMax(), 5.0F);
    x->resetDynamicRange();
    EXPECT_FALSE(x->dynamicRangeIsSet());
    x->setLocation(TensorLocation::kHOST);
    EXPECT_EQ(x->getLocation(), TensorLocation::kDEVICE);
    EXPECT_EQ(logger.take("ITensor::setLocation"), 1U);
    EXPECT_FALSE(x->getBroadcastAcrossBatch());
}

TEST_F(NetworkApi, FillTakesInt64AlphaAndBeta)
{
    IFillLayer* fill = network->addFill(dims({4}), FillOperation::kLINSPACE, DataType::kFLOAT);
    ASSERT_NE(fill, nullptr);
    EXPECT_FALSE(fill->isAlphaBetaInt64());
    fill->setAlphaInt64(-7);
    fill->setBetaInt64(3);
    EXPECT_TRUE(fill->isAlphaBetaInt64());
    EXPECT_EQ(fill->getAlphaInt64(), -7);
    EXPECT_EQ(fill->getBetaInt64(), 3);
    fill->setAlphaInt64(int64_t{1} << 60); // not exact as a double: refused, alpha unchanged
    EXPECT_EQ(logger.take("IFillLayer::setAlphaInt64"), 1U);
    EXPECT_EQ(fill->getAlphaInt64(), -7);
    fill->getOutput(0)->setName("y");
    network->markOutput(*fill->getOutput(0));
    EXPECT_EQ(run({}, 4), (std::vector<float>{-7, -4, -1, 2}));
}

TEST_F(NetworkApi, SliceAxesAreEveryAxisInOrder)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2, 3}));
    ISliceLayer* slice = network->addSlice(*x, dims({0, 0}), dims({2, 3}), dims({1, 1}));
    EXPECT_EQ(extents(slice->getAxes()), (std::vector<int64_t>{0, 1}));
    slice->setAxes(dims({0, -1}));
    EXPECT_TRUE(logger.errors.empty());
    slice->setAxes(dims({1}));
    EXPECT_EQ(logger.take("ISliceLayer::setAxes"), 1U);
}

TEST_F(NetworkApi, RefusedCallsReturnTheFailureValueAndNameTheCall)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2}));
    EXPECT_FALSE(network->hasImplicitBatchDimension());
    EXPECT_EQ(network->addRaggedSoftMax(*x, *x), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addRaggedSoftMax"), 1U);
    EXPECT_EQ(network->addAssertion(*x, "never"), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addAssertion"), 1U);
    EXPECT_EQ(network->addDynamicQuantize(*x, 0, 16, DataType::kFP4, DataType::kFP8), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addDynamicQuantize"), 1U);
    ITensor* inputs[] = {x};
    EXPECT_EQ(network->addEinsum(inputs, 1, "i->"), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addEinsum"), 1U);
    EXPECT_FALSE(network->markOutputForShapes(*x));
    EXPECT_EQ(logger.take("INetworkDefinition::markOutputForShapes"), 1U);
    EXPECT_FALSE(network->markWeightsRefittable("w"));
    EXPECT_EQ(logger.take("INetworkDefinition::markWeightsRefittable"), 1U);
    EXPECT_FALSE(network->areWeightsMarkedRefittable("w"));
    EXPECT_FALSE(network->setWeightsName(Weights{DataType::kFLOAT, nullptr, 0}, "w"));
    EXPECT_EQ(logger.take("INetworkDefinition::setWeightsName"), 1U);
    EXPECT_EQ(network->getNbLayers(), 0); // no refused call left a layer behind
}

TEST_F(NetworkApi, RefusedCallsOfTensorRT1016NameTheCall)
{
    ITensor* hidden = network->addInput("hidden", DataType::kFLOAT, dims({1, 2, 4}));
    ITensor* experts = network->addInput("experts", DataType::kINT32, dims({1, 2, 2}));
    ITensor* scores = network->addInput("scores", DataType::kFLOAT, dims({1, 2, 2}));
    EXPECT_EQ(network->addMoE(*hidden, *experts, *scores), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addMoE: Kiln has no mixture-of-experts layer yet"), 1U);
    int64_t group[] = {0, 1};
    EXPECT_EQ(network->addDistCollective(*hidden, CollectiveOperation::kALL_REDUCE, ReduceOperation::kSUM, 0, group, 2),
        nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addDistCollective: Kiln's engines run on one device"), 1U);
    EXPECT_EQ(
        network->addDistCollective(*hidden, CollectiveOperation::kALL_GATHER, ReduceOperation::kNONE, 0, nullptr, 0),
        nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addDistCollective"), 1U);
    // ReduceOperation::kNONE (10.16) only serves collectives: no reduce layer takes it.
    EXPECT_EQ(network->addReduce(*hidden, ReduceOperation::kNONE, 1U << 2, false), nullptr);
    EXPECT_EQ(logger.take("reduce operation 5 is not one a reduce layer computes"), 1U);
    EXPECT_EQ(network->getNbLayers(), 0);

    IActivationLayer* relu = network->addActivation(*hidden, ActivationType::kRELU);
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(relu->getNbRanks(), 1);
    EXPECT_TRUE(relu->setNbRanks(1));
    EXPECT_TRUE(logger.errors.empty());
    EXPECT_FALSE(relu->setNbRanks(2));
    EXPECT_EQ(logger.take("ILayer::setNbRanks: 2 ranks"), 1U);
    EXPECT_FALSE(relu->setNbRanks(0));
    EXPECT_EQ(logger.take("ILayer::setNbRanks"), 1U);
    EXPECT_EQ(relu->getNbRanks(), 1);
}

TEST_F(NetworkApi, ContextGivesItsRuntimeConfigAndUnfusedDebugState)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({2}));
    network->markOutput(*network->addActivation(*x, ActivationType::kRELU)->getOutput(0));
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    std::unique_ptr<IRuntimeConfig> made{engine->createRuntimeConfig()};
    made->setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy::kUSER_MANAGED);
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext(made.get())};
    ASSERT_NE(context, nullptr);
    IRuntimeConfig* given = context->getRuntimeConfig();
    ASSERT_NE(given, nullptr);
    EXPECT_EQ(given->getExecutionContextAllocationStrategy(), ExecutionContextAllocationStrategy::kUSER_MANAGED);
    std::unique_ptr<IExecutionContext> plain{engine->createExecutionContext()};
    EXPECT_EQ(plain->getRuntimeConfig()->getExecutionContextAllocationStrategy(),
        ExecutionContextAllocationStrategy::kSTATIC);
    // The network marked no unfused tensors: turning their state on succeeds and gives the listener nothing.
    EXPECT_TRUE(context->setUnfusedTensorsDebugState(true));
    EXPECT_TRUE(context->getUnfusedTensorsDebugState());
    EXPECT_TRUE(context->setUnfusedTensorsDebugState(false));
    EXPECT_FALSE(context->getUnfusedTensorsDebugState());
    int communicator = 0; // stands for an ncclComm_t (TensorRT 10.16)
    EXPECT_FALSE(context->setCommunicator(&communicator));
    EXPECT_EQ(logger.take("IExecutionContext::setCommunicator: Kiln's engines run on one device"), 1U);
}

//! TensorRT 7/8-style selector (no noexcept); Kiln refuses it, so neither method may run.
class FailingSelector final : public IAlgorithmSelector
{
public:
    int32_t selectAlgorithms(IAlgorithmContext const& /*context*/, IAlgorithm const* const* /*choices*/,
        int32_t /*nbChoices*/, int32_t* /*selection*/) override
    {
        ADD_FAILURE() << "Kiln offered a choice to a refused selector";
        return 0;
    }
    void reportAlgorithms(IAlgorithmContext const* const* /*contexts*/, IAlgorithm const* const* /*choices*/,
        int32_t /*nbAlgorithms*/) override
    {
        ADD_FAILURE() << "Kiln reported choices to a refused selector";
    }
};

TEST_F(NetworkApi, AlgorithmSelectorIsRefusedAndNeverCalled)
{
    FailingSelector selector;
    config->setAlgorithmSelector(&selector);
    EXPECT_EQ(config->getAlgorithmSelector(), nullptr);
    EXPECT_EQ(logger.take("IBuilderConfig::setAlgorithmSelector"), 1U);
    config->setAlgorithmSelector(nullptr);
    EXPECT_TRUE(logger.errors.empty());
    ITensor* x = network->addInput("x", DataType::kFLOAT, dims({3}));
    IActivationLayer* relu = network->addActivation(*x, ActivationType::kRELU);
    relu->getOutput(0)->setName("y");
    network->markOutput(*relu->getOutput(0));
    EXPECT_EQ(run({{"x", {-1, 0, 2}}}, 3), (std::vector<float>{0, 0, 2}));
}

} // namespace
