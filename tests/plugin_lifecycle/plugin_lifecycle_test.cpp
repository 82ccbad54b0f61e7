// The calls Kiln makes into a plugin and their order, plugins that fail, and
// format negotiation, on the CPU backend.
#include "../pipeline/test_logger.h"
#include "device_common/half.h"
#include "recording_plugin.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>

namespace
{

using namespace nvinfer1;
using kiln::test::CallLog;
using kiln::test::RecorderOptions;

class PluginLifecycle : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        static kiln::test::RecordingCreator creator;
        getPluginRegistry()->registerCreator(creator, "");
    }

    //! x (N, 4) -> plugin -> y, N in 1..4. nullptr if the build failed.
    std::unique_ptr<IHostMemory> build(IPluginV2& plugin, DataType ioType = DataType::kFLOAT, bool fp16 = false)
    {
        builder.reset(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        ITensor* x = network->addInput("x", ioType, Dims{2, {-1, 4}});
        IPluginV2Layer* layer = network->addPluginV2(&x, 1, plugin);
        if (layer == nullptr)
        {
            return nullptr;
        }
        layer->getOutput(0)->setName("y");
        network->markOutput(*layer->getOutput(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCPU);
        if (fp16)
        {
            config->setFlag(BuilderFlag::kFP16);
        }
        if (workspaceLimit)
        {
            config->setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, *workspaceLimit);
        }
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, 4}});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {2, 4}});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {4, 4}});
        config->addOptimizationProfile(profile);
        return std::unique_ptr<IHostMemory>(builder->buildSerializedNetwork(*network, *config));
    }

    std::unique_ptr<ICudaEngine> load(IHostMemory const& plan)
    {
        runtime.reset(createInferRuntime(logger));
        return std::unique_ptr<ICudaEngine>(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    }

    static bool runOnce(IExecutionContext& context, std::vector<float>& x, std::vector<float>& y)
    {
        context.setInputShape("x", Dims{2, {static_cast<int64_t>(x.size() / 4), 4}});
        context.setTensorAddress("x", x.data());
        context.setTensorAddress("y", y.data());
        return context.enqueueV3(nullptr);
    }

    kiln::test::RecordingLogger logger;
    std::optional<size_t> workspaceLimit; //!< IBuilderConfig's kWORKSPACE pool limit, where a test sets one
    std::unique_ptr<IBuilder> builder;
    std::unique_ptr<IRuntime> runtime;
};

//! True if every call of expected appears in calls, in that order.
::testing::AssertionResult inOrder(std::vector<std::string> const& calls, std::vector<std::string> const& expected)
{
    auto position = calls.begin();
    for (auto const& call : expected)
    {
        position = std::find(position, calls.end(), call);
        if (position == calls.end())
        {
            std::string all;
            for (auto const& c : calls)
            {
                all += c + " ";
            }
            return ::testing::AssertionFailure() << "\"" << call << "\" missing or out of order in: " << all;
        }
        ++position;
    }
    return ::testing::AssertionSuccess();
}

TEST_F(PluginLifecycle, CallsFollowTensorRTsOrder)
{
    CallLog::take();
    {
        kiln::test::HostRecordingPlugin plugin(RecorderOptions{});
        std::unique_ptr<IHostMemory> plan = build(plugin);
        ASSERT_NE(plan, nullptr) << logger.errors();
        std::vector<std::string> const buildCalls = CallLog::take();
        // Network: Kiln keeps a clone, then asks for outputs. Build: a fresh clone is
        // negotiated, configured, sized, initialised, serialized, then released.
        EXPECT_TRUE(inOrder(buildCalls,
            {"clone", "getNbOutputs", "getOutputDataType", "getOutputDimensions", "clone", "supportsFormatCombination",
                "configurePlugin", "getWorkspaceSize", "initialize", "getSerializationSize", "serialize", "terminate",
                "destroy"}));

        std::unique_ptr<ICudaEngine> engine = load(*plan);
        ASSERT_NE(engine, nullptr) << logger.errors();
        std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
        std::vector<float> x{1, 2, 3, 4, -1, -2, -3, -4}, y(8);
        ASSERT_TRUE(runOnce(*context, x, y)) << logger.errors();
        EXPECT_EQ(y[5], -4.0f);
        // Loading: deserialize and initialise; each context: clone and attach; each new shape: configure.
        context.reset();
        engine.reset();
        EXPECT_TRUE(inOrder(CallLog::take(),
            {"deserializePlugin", "initialize", "clone", "attachToContext", "configurePlugin", "enqueueHost",
                "detachFromContext", "destroy", "terminate", "destroy"}));
    }
}

TEST_F(PluginLifecycle, ShapeChangeReconfiguresOnlyWhenShapesChange)
{
    kiln::test::HostRecordingPlugin plugin(RecorderOptions{});
    std::unique_ptr<IHostMemory> plan = build(plugin);
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::vector<float> two(8, 1.0f), three(12, 1.0f), y(12);
    CallLog::take();
    ASSERT_TRUE(runOnce(*context, two, y));
    ASSERT_TRUE(runOnce(*context, two, y));
    ASSERT_TRUE(runOnce(*context, three, y));
    auto const calls = CallLog::take();
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "configurePlugin"), 2);
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "enqueueHost"), 3);
}

TEST_F(PluginLifecycle, EnqueueErrorIsReportedWithThePluginsName)
{
    RecorderOptions options;
    options.failure = RecorderOptions::Failure::kENQUEUE_RETURNS_ERROR;
    kiln::test::HostRecordingPlugin plugin(options);
    std::unique_ptr<IHostMemory> plan = build(plugin);
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::vector<float> x(4, 1.0f), y(4);
    EXPECT_FALSE(runOnce(*context, x, y));
    EXPECT_NE(logger.errors().find("Recorder (version 1, namespace \"\"): enqueueHost returned 7"), std::string::npos)
        << logger.errors();
}

TEST_F(PluginLifecycle, ThrowingPluginBecomesAnError)
{
    RecorderOptions options;
    options.failure = RecorderOptions::Failure::kENQUEUE_THROWS;
    kiln::test::HostRecordingPlugin plugin(options);
    std::unique_ptr<IHostMemory> plan = build(plugin);
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::vector<float> x(4, 1.0f), y(4);
    EXPECT_FALSE(runOnce(*context, x, y));
    EXPECT_NE(logger.errors().find("threw from enqueueHost: kernel exploded"), std::string::npos) << logger.errors();
    // The context stays usable for the next call (it fails the same way, without crashing).
    EXPECT_FALSE(runOnce(*context, x, y));
}

TEST_F(PluginLifecycle, PluginWithoutHostExecutionCannotBuildForTheCpu)
{
    kiln::test::RecordingPlugin plugin(RecorderOptions{});
    EXPECT_EQ(build(plugin), nullptr);
    EXPECT_NE(logger.errors().find("Recorder (version 1, namespace \"\") does not implement kiln::IHostPlugin"),
        std::string::npos)
        << logger.errors();
}

TEST_F(PluginLifecycle, NegotiationFailureNamesPositionAndCombinations)
{
    RecorderOptions options;
    options.types = {DataType::kINT8};
    kiln::test::HostRecordingPlugin plugin(options);
    EXPECT_EQ(build(plugin), nullptr);
    std::string const errors = logger.errors();
    EXPECT_NE(errors.find("no supported format combination: position 0 (input 0) rejected FLOAT/LINEAR, HALF/LINEAR"),
        std::string::npos)
        << errors;
}

TEST_F(PluginLifecycle, HalfOnlyPluginGetsConversionsAroundIt)
{
    RecorderOptions options;
    options.types = {DataType::kHALF};
    kiln::test::HostRecordingPlugin plugin(options);
    std::unique_ptr<IHostMemory> plan = build(plugin);
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::vector<float> x{0.1f, 1000.3f, -3.14159f, 65504.0f}, y(4);
    ASSERT_TRUE(runOnce(*context, x, y)) << logger.errors();
    for (size_t i = 0; i < x.size(); ++i)
    {
        // Input rounded to half, doubled in float, rounded to half again, back to float.
        float const expected = kiln::roundThroughHalf(2.0f * kiln::roundThroughHalf(x[i]));
        EXPECT_EQ(y[i], expected) << i;
    }
}

TEST_F(PluginLifecycle, WorkspaceBeyondThePoolLimitFailsTheBuild)
{
    kiln::test::HostRecordingPlugin plugin(RecorderOptions{}); // asks for 64 bytes of workspace
    workspaceLimit = 63;
    EXPECT_EQ(build(plugin), nullptr);
    EXPECT_NE(logger.errors().find("plugin Recorder (version 1, namespace \"\") needs 64 bytes of workspace "
                                   "(getWorkspaceSize), more than the workspace pool's limit of 63 bytes"),
        std::string::npos)
        << logger.errors();

    workspaceLimit = 64;
    EXPECT_NE(build(plugin), nullptr) << logger.errors();
}

TEST_F(PluginLifecycle, InspectorNamesThePluginAndWhatThePlanNeeds)
{
    kiln::test::HostRecordingPlugin plugin(RecorderOptions{});
    std::unique_ptr<IHostMemory> plan = build(plugin);
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IEngineInspector> inspector(engine->createEngineInspector());
    auto const info = nlohmann::json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON));
    nlohmann::json const expectedPlugin{{"Name", "Recorder"}, {"Version", "1"}, {"Namespace", ""},
        {"Interface", "IPluginV2DynamicExt"}, {"Library", ""}};
    EXPECT_EQ(info["PluginsNeeded"], nlohmann::json::array({expectedPlugin}));
    ASSERT_EQ(info["Layers"].size(), 1U);
    EXPECT_EQ(info["Layers"][0]["LayerType"], "PluginV2");
    EXPECT_EQ(info["Layers"][0]["Plugin"], expectedPlugin);
    EXPECT_FALSE(info["Layers"][0].contains("Precision")); // plugins negotiate types; no precision is chosen
}

TEST_F(PluginLifecycle, ContextsOnSeveralThreadsAgreeWithOneThread)
{
    kiln::test::HostRecordingPlugin plugin(RecorderOptions{});
    std::unique_ptr<IHostMemory> plan = build(plugin);
    std::unique_ptr<ICudaEngine> engine = load(*plan);
    constexpr int kThreads = 4;
    std::vector<std::vector<float>> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        threads.emplace_back([&, t] {
            std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
            std::vector<float> x(16), y(16);
            for (int repeat = 0; repeat < 50; ++repeat)
            {
                for (size_t i = 0; i < x.size(); ++i)
                {
                    x[i] = static_cast<float>(i) * 0.5f + static_cast<float>(repeat);
                }
                if (!runOnce(*context, x, y))
                {
                    return;
                }
            }
            results[t] = y;
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    for (int t = 0; t < kThreads; ++t)
    {
        ASSERT_EQ(results[t].size(), 16u) << "thread " << t << " failed: " << logger.errors();
        for (size_t i = 0; i < 16; ++i)
        {
            EXPECT_EQ(results[t][i], 2.0f * (static_cast<float>(i) * 0.5f + 49.0f));
        }
    }
}

} // namespace
