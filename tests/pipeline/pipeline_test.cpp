// The build-and-run pipeline on the CPU backend through TensorRT's API:
// network -> builder -> plan bytes -> runtime -> engine -> context -> results.
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;

struct Built
{
    std::unique_ptr<IHostMemory> plan;
};

//! y = relu(x) + x, with x of shape (N, 3), N given at run time (1..8).
std::unique_ptr<IHostMemory> buildReluPlusInput(IBuilder& builder)
{
    std::unique_ptr<INetworkDefinition> network(builder.createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 3}});
    auto* relu = network->addActivation(*x, ActivationType::kRELU);
    auto* sum = network->addElementWise(*relu->getOutput(0), *x, ElementWiseOperation::kSUM);
    sum->getOutput(0)->setName("y");
    network->markOutput(*sum->getOutput(0));

    std::unique_ptr<IBuilderConfig> config(builder.createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    IOptimizationProfile* profile = builder.createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, 3}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {4, 3}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {8, 3}});
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>(builder.buildSerializedNetwork(*network, *config));
}

TEST(Pipeline, DynamicShapeNetworkRunsFromItsPlan)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IHostMemory> plan = buildReluPlusInput(*builder);
    ASSERT_NE(plan, nullptr) << logger.errors();

    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    ASSERT_EQ(engine->getNbIOTensors(), 2);
    EXPECT_STREQ(engine->getIOTensorName(0), "x");
    EXPECT_STREQ(engine->getIOTensorName(1), "y");
    EXPECT_EQ(engine->getTensorIOMode("x"), TensorIOMode::kINPUT);
    EXPECT_EQ(engine->getTensorIOMode("y"), TensorIOMode::kOUTPUT);
    Dims const declared = engine->getTensorShape("y");
    ASSERT_EQ(declared.nbDims, 2);
    EXPECT_EQ(declared.d[0], -1);
    EXPECT_EQ(declared.d[1], 3);
    EXPECT_EQ(engine->getProfileShape("x", 0, OptProfileSelector::kMAX).d[0], 8);

    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    for (int64_t n : {2, 5})
    {
        std::vector<float> x(n * 3);
        for (size_t i = 0; i < x.size(); ++i)
        {
            x[i] = static_cast<float>(i) - 4.0f;
        }
        std::vector<float> y(x.size(), -100.0f);
        ASSERT_TRUE(context->setInputShape("x", Dims{2, {n, 3}}));
        Dims const out = context->getTensorShape("y");
        ASSERT_EQ(out.nbDims, 2);
        EXPECT_EQ(out.d[0], n);
        ASSERT_TRUE(context->setTensorAddress("x", x.data()));
        ASSERT_TRUE(context->setTensorAddress("y", y.data()));
        ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        for (size_t i = 0; i < x.size(); ++i)
        {
            float const expected = (x[i] > 0 ? x[i] : 0.0f) + x[i];
            EXPECT_FLOAT_EQ(y[i], expected) << "element " << i << " for N=" << n;
        }
    }
}

TEST(Pipeline, ShapeOutsideProfileIsRejected)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IHostMemory> plan = buildReluPlusInput(*builder);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    EXPECT_FALSE(context->setInputShape("x", Dims{2, {9, 3}}));
    EXPECT_NE(logger.errors().find("outside optimization profile 0"), std::string::npos) << logger.errors();
    EXPECT_FALSE(context->setInputShape("nope", Dims{2, {2, 3}}));
    EXPECT_NE(logger.errors().find("no input or output is named \"nope\""), std::string::npos);
}

TEST(Pipeline, DynamicInputWithoutProfileFailsToBuild)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    network->markOutput(*network->addActivation(*x, ActivationType::kRELU)->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    EXPECT_EQ(builder->buildSerializedNetwork(*network, *config), nullptr);
    EXPECT_NE(logger.errors().find("no optimization profile"), std::string::npos) << logger.errors();
}

TEST(Pipeline, BroadcastMismatchNamesTheLayer)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* a = network->addInput("a", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* b = network->addInput("b", DataType::kFLOAT, Dims{2, {2, 4}});
    EXPECT_EQ(network->addElementWise(*a, *b, ElementWiseOperation::kSUM), nullptr);
    EXPECT_NE(logger.errors().find("[ElementWise]"), std::string::npos) << logger.errors();
    EXPECT_NE(logger.errors().find("3 vs 4"), std::string::npos) << logger.errors();
}

} // namespace
