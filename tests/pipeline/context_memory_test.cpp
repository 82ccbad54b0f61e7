// Execution-context memory on the CPU backend, through TensorRT 10's API: a kUSER_MANAGED
// context runs in memory the application gives (host memory, where CPU plans keep their
// activations) and refuses to run without it or with too little; the sizes the engine
// reports; and what a V3 plugin's IPluginResourceContext lends it.
#include "keeping_recorder.h"
#include "resource_probe_plugin.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Host memory aligned as setDeviceMemoryV2 requires.
struct AlignedMemory
{
    explicit AlignedMemory(size_t bytes)
        : data(static_cast<std::byte*>(std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256)))
    {
    }
    ~AlignedMemory()
    {
        std::free(data);
    }
    std::byte* data;
};

//! y = probe(|x| + x) for x of shape (8): the sum is an activation in the context's memory, and the probe (a V3
//! plugin that copies) asks for a workspace there.
struct ProbeEngine
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;

    ProbeEngine()
    {
        kiln::test::ResourceProbeCreator::registerOnce();
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {8}});
        IUnaryLayer* abs = network->addUnary(*x, UnaryOperation::kABS);
        IElementWiseLayer* sum = network->addElementWise(*abs->getOutput(0), *x, ElementWiseOperation::kSUM);
        kiln::test::ResourceProbePlugin probe;
        ITensor* probeInput = sum->getOutput(0);
        IPluginV3Layer* copy = network->addPluginV3(&probeInput, 1, nullptr, 0, probe);
        copy->getOutput(0)->setName("y");
        network->markOutput(*copy->getOutput(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCPU);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << logger.errors();
        if (plan == nullptr)
        {
            return;
        }
        runtime.reset(createInferRuntime(logger));
        engine.reset(runtime->deserializeCudaEngine(plan->data(), plan->size()));
        EXPECT_NE(engine, nullptr) << logger.errors();
    }
};

std::vector<float> const kInput{-3.0F, -1.5F, 0.0F, 0.25F, 1.0F, 2.0F, -8.0F, 5.5F};

//! |x| + x, computed here: 0 for negatives, 2x otherwise.
std::vector<float> expectedOutput()
{
    std::vector<float> y;
    for (float v : kInput)
    {
        y.push_back(v < 0.0F ? 0.0F : 2.0F * v);
    }
    return y;
}

bool runOnce(IExecutionContext& context, std::vector<float>& y)
{
    y.assign(kInput.size(), -1.0F);
    return context.setInputTensorAddress("x", kInput.data()) && context.setTensorAddress("y", y.data())
        && context.enqueueV3(nullptr);
}

TEST(ContextMemory, UserManagedContextRunsInTheApplicationsMemory)
{
    ProbeEngine probe;
    ASSERT_NE(probe.engine, nullptr);
    ICudaEngine& engine = *probe.engine;
    int64_t const size = engine.getDeviceMemorySizeV2();
    // The activations (the sum, 8 floats) and the probe's workspace at least.
    EXPECT_GE(size, static_cast<int64_t>(8 * sizeof(float) + kiln::test::ResourceProbePlugin::kWorkspaceBytes));
    EXPECT_EQ(engine.getDeviceMemorySizeForProfileV2(0), size);
    EXPECT_EQ(engine.getDeviceMemorySize(), static_cast<size_t>(size));
    EXPECT_EQ(engine.getDeviceMemorySizeForProfile(0), static_cast<size_t>(size));

    std::unique_ptr<IExecutionContext> owning(engine.createExecutionContext());
    ASSERT_NE(owning, nullptr) << probe.logger.errors();
    std::vector<float> reference;
    ASSERT_TRUE(runOnce(*owning, reference)) << probe.logger.errors();
    EXPECT_EQ(reference, expectedOutput());

    std::unique_ptr<IExecutionContext> context(
        engine.createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    kiln::test::KeepingRecorder recorder;
    context->setErrorRecorder(&recorder);
    std::vector<float> y;
    EXPECT_FALSE(runOnce(*context, y));
    ASSERT_EQ(recorder.errors.size(), 1U);
    std::string const missing = recorder.errors[0].second;
    EXPECT_NE(missing.find("kUSER_MANAGED"), std::string::npos) << missing;
    EXPECT_NE(missing.find("setDeviceMemoryV2"), std::string::npos) << missing;
    EXPECT_NE(missing.find(std::to_string(size) + " bytes"), std::string::npos) << missing;

    AlignedMemory memory(static_cast<size_t>(size));
    std::memset(memory.data, 0xAB, static_cast<size_t>(size));
    recorder.clear();
    context->setDeviceMemoryV2(memory.data, size - 1);
    ASSERT_EQ(recorder.errors.size(), 1U);
    EXPECT_EQ(recorder.errors[0].first, ErrorCode::kINVALID_ARGUMENT);
    EXPECT_NE(recorder.errors[0].second.find(std::to_string(size - 1) + " bytes are too few"), std::string::npos)
        << recorder.errors[0].second;
    context->setDeviceMemoryV2(memory.data + 16, size); // misaligned
    ASSERT_EQ(recorder.errors.size(), 2U);
    EXPECT_NE(recorder.errors[1].second.find("256-byte aligned"), std::string::npos) << recorder.errors[1].second;
    context->setDeviceMemoryV2(nullptr, size);
    ASSERT_EQ(recorder.errors.size(), 3U);
    // Refused memory is not taken: the context still has none.
    EXPECT_FALSE(runOnce(*context, y));

    recorder.clear();
    kiln::test::ResourceProbeLog::clear();
    context->setDeviceMemoryV2(memory.data, size);
    EXPECT_TRUE(recorder.errors.empty());
    ASSERT_TRUE(runOnce(*context, y)) << probe.logger.errors();
    EXPECT_EQ(y, reference);
    // The run used the application's memory: the plugin's workspace lies in it, and the activations were written.
    ASSERT_EQ(kiln::test::ResourceProbeLog::workspacesAtRun.size(), 1U);
    auto const* workspace = static_cast<std::byte*>(kiln::test::ResourceProbeLog::workspacesAtRun[0]);
    EXPECT_GE(workspace, memory.data);
    EXPECT_LE(workspace + kiln::test::ResourceProbePlugin::kWorkspaceBytes, memory.data + size);
    size_t changed = 0;
    for (int64_t i = 0; i < size; ++i)
    {
        changed += memory.data[i] != std::byte{0xAB} ? 1 : 0;
    }
    EXPECT_GE(changed, kiln::test::ResourceProbePlugin::kWorkspaceBytes + 1);
    context->setErrorRecorder(nullptr);
}

TEST(ContextMemory, ContextsThatOwnTheirMemoryRefuseTheApplications)
{
    ProbeEngine probe;
    ASSERT_NE(probe.engine, nullptr);
    for (auto strategy :
        {ExecutionContextAllocationStrategy::kSTATIC, ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE})
    {
        std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext(strategy));
        ASSERT_NE(context, nullptr) << probe.logger.errors();
        kiln::test::KeepingRecorder recorder;
        context->setErrorRecorder(&recorder);
        AlignedMemory memory(static_cast<size_t>(probe.engine->getDeviceMemorySizeV2()));
        context->setDeviceMemoryV2(memory.data, probe.engine->getDeviceMemorySizeV2());
        ASSERT_EQ(recorder.errors.size(), 1U);
        EXPECT_EQ(recorder.errors[0].first, ErrorCode::kINVALID_STATE);
        EXPECT_NE(recorder.errors[0].second.find("allocates its own memory"), std::string::npos);
        context->setErrorRecorder(nullptr);
        std::vector<float> y;
        ASSERT_TRUE(runOnce(*context, y)) << probe.logger.errors();
        EXPECT_EQ(y, expectedOutput());
    }
}

TEST(ContextMemory, DeprecatedFormsBehaveAsTheirReplacements)
{
    ProbeEngine probe;
    ASSERT_NE(probe.engine, nullptr);
    std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContextWithoutDeviceMemory());
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    std::vector<float> y;
    EXPECT_FALSE(runOnce(*context, y));
    AlignedMemory memory(probe.engine->getDeviceMemorySize());
    context->setDeviceMemory(memory.data);
    ASSERT_TRUE(runOnce(*context, y)) << probe.logger.errors();
    EXPECT_EQ(y, expectedOutput());
}

TEST(ContextMemory, SizesForProfilesAndShapes)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    IActivationLayer* relu = network->addActivation(*x, ActivationType::kRELU);
    IElementWiseLayer* sum = network->addElementWise(*relu->getOutput(0), *x, ElementWiseOperation::kSUM);
    sum->getOutput(0)->setName("y");
    network->markOutput(*sum->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    // On the reference kernels, which keep the relu's output (the fast path fuses the relu and the sum).
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
    for (int64_t largest : {4, 64})
    {
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, 4}});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {largest, 4}});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {largest, 4}});
        config->addOptimizationProfile(profile);
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();

    int64_t const size = engine->getDeviceMemorySizeV2();
    // The relu's output, 64 x 4 floats at most, lives in the context's memory.
    EXPECT_GE(size, 64 * 4 * static_cast<int64_t>(sizeof(float)));
    // One layout serves both profiles.
    EXPECT_EQ(engine->getDeviceMemorySizeForProfileV2(0), size);
    EXPECT_EQ(engine->getDeviceMemorySizeForProfileV2(1), size);
    EXPECT_EQ(engine->getDeviceMemorySizeForProfileV2(2), -1);
    EXPECT_NE(logger.errors().find("profile 2 does not exist"), std::string::npos) << logger.errors();
    EXPECT_EQ(engine->getDeviceMemorySizeForProfile(2), 0U);

    std::unique_ptr<IExecutionContext> context(
        engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
    ASSERT_NE(context, nullptr) << logger.errors();
    kiln::test::KeepingRecorder recorder;
    context->setErrorRecorder(&recorder);
    EXPECT_EQ(context->updateDeviceMemorySizeForShapes(), 0U); // the input shape is not known yet
    ASSERT_EQ(recorder.errors.size(), 1U);
    EXPECT_NE(recorder.errors[0].second.find("setInputShape"), std::string::npos) << recorder.errors[0].second;
    ASSERT_TRUE(context->setInputShape("x", Dims{2, {3, 4}}));
    EXPECT_EQ(context->updateDeviceMemorySizeForShapes(), static_cast<size_t>(size));

    AlignedMemory memory(static_cast<size_t>(size));
    context->setDeviceMemoryV2(memory.data, size);
    std::vector<float> const input{-1, 2, -3, 4, 5, -6, 7, -8, 0, 1, -2, 3};
    std::vector<float> output(12, -1.0F);
    ASSERT_TRUE(context->setInputTensorAddress("x", input.data()));
    ASSERT_TRUE(context->setTensorAddress("y", output.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
    for (size_t i = 0; i < input.size(); ++i)
    {
        EXPECT_EQ(output[i], input[i] < 0 ? input[i] : 2 * input[i]) << i; // relu(x) + x
    }
    context->setErrorRecorder(nullptr);
}

TEST(ContextMemory, V3PluginsGetTheContextsCurrentRecorderAndNoAllocatorOnTheCpu)
{
    ProbeEngine probe;
    ASSERT_NE(probe.engine, nullptr);
    kiln::test::ResourceProbeLog::clear();
    std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    ASSERT_EQ(kiln::test::ResourceProbeLog::allocatorsAtAttach.size(), 1U);
    EXPECT_EQ(kiln::test::ResourceProbeLog::allocatorsAtAttach[0], nullptr); // no device memory on the CPU backend

    std::vector<float> y;
    ASSERT_TRUE(runOnce(*context, y)) << probe.logger.errors();
    // A recorder set after the plugin attached is the one it sees when it runs.
    kiln::test::KeepingRecorder recorder;
    context->setErrorRecorder(&recorder);
    ASSERT_TRUE(runOnce(*context, y)) << probe.logger.errors();
    ASSERT_EQ(kiln::test::ResourceProbeLog::recordersAtRun.size(), 2U);
    EXPECT_EQ(kiln::test::ResourceProbeLog::recordersAtRun[0], nullptr);
    EXPECT_EQ(kiln::test::ResourceProbeLog::recordersAtRun[1], &recorder);
    context->setErrorRecorder(nullptr);
}

} // namespace
