// An application written against TensorRT 10's API as its documentation shows it, compiled as application code is
// (C++17, -Wall -Wextra -Werror) and run on Kiln's CPU backend: a plan written through an IStreamWriter and read
// back through IStreamReader and IStreamReaderV2 runs and gives the same outputs as the plan in memory; runtime
// and serialization configs; plugins to serialize; and the calls Kiln refuses, which return TensorRT's failure
// value and log one error naming the call.
#include <NvInfer.h>
#include <kiln/Backend.h>

#include "cpu_network_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

using namespace nvinfer1;

// TensorRT 10's enum values, as applications name them.
static_assert(static_cast<int32_t>(EngineCapability::kDLA_STANDALONE) == 2 && EnumMax<EngineCapability>() == 3);
static_assert(static_cast<int32_t>(DeviceType::kDLA) == 1 && EnumMax<DeviceType>() == 2);
static_assert(static_cast<int32_t>(TacticSource::kJIT_CONVOLUTIONS) == 4 && EnumMax<TacticSource>() == 5);
static_assert(static_cast<int32_t>(ProfilingVerbosity::kDETAILED) == 2 && EnumMax<ProfilingVerbosity>() == 3);
static_assert(static_cast<int32_t>(CalibrationAlgoType::kMINMAX_CALIBRATION) == 3);
static_assert(static_cast<int32_t>(SerializationFlag::kEXCLUDE_LEAN_RUNTIME) == 1);
static_assert(static_cast<int32_t>(SeekPosition::kEND) == 2);
static_assert(static_cast<int32_t>(WeightsRole::kCONSTANT) == 4);
static_assert(static_cast<int32_t>(HardwareCompatibilityLevel::kAMPERE_PLUS) == 1);
static_assert(std::is_same_v<IStreamReaderV2, v_1_0::IStreamReaderV2>);
static_assert(std::is_same_v<IDebugListener, v_1_0::IDebugListener>);
static_assert(std::is_base_of_v<IInt8Calibrator, IInt8EntropyCalibrator2>);
static_assert(std::is_abstract_v<IRefitter>);

using kiln::test::CpuNetworkTest;

class VectorWriter final : public IStreamWriter
{
public:
    int64_t write(void const* data, int64_t nbBytes) override
    {
        auto const* bytes = static_cast<char const*>(data);
        buffer.insert(buffer.end(), bytes, bytes + nbBytes);
        return nbBytes;
    }
    std::vector<char> buffer;
};

//! Hands out at most 100 bytes per call, as a socket might; TensorRT 7/8-style override (no noexcept).
class MemoryReader final : public IStreamReader
{
public:
    explicit MemoryReader(std::vector<char> const& bytes)
        : mBytes(bytes)
    {
    }
    int64_t read(void* destination, int64_t nbBytes) override
    {
        int64_t const n = std::min<int64_t>(nbBytes, static_cast<int64_t>(mBytes.size() - mPosition));
        std::memcpy(destination, mBytes.data() + mPosition, static_cast<size_t>(n));
        mPosition += static_cast<size_t>(n);
        return n;
    }

private:
    std::vector<char> const& mBytes;
    size_t mPosition{0};
};

//! TensorRT 10's form: read and seek noexcept.
class SeekableReader final : public IStreamReaderV2
{
public:
    explicit SeekableReader(std::vector<char> const& bytes)
        : mBytes(bytes)
    {
    }
    int64_t read(void* destination, int64_t nbBytes, cudaStream_t /*stream*/) noexcept override
    {
        int64_t const n = std::min<int64_t>(nbBytes, static_cast<int64_t>(mBytes.size()) - mPosition);
        std::memcpy(destination, mBytes.data() + mPosition, static_cast<size_t>(n));
        mPosition += n;
        return n;
    }
    bool seek(int64_t offset, SeekPosition where) noexcept override
    {
        int64_t const base = where == SeekPosition::kSET ? 0
            : where == SeekPosition::kCUR                ? mPosition
                                                         : static_cast<int64_t>(mBytes.size());
        mPosition = base + offset;
        return mPosition >= 0 && mPosition <= static_cast<int64_t>(mBytes.size());
    }

private:
    std::vector<char> const& mBytes;
    int64_t mPosition{0};
};

class NoCalibrator final : public IInt8EntropyCalibrator2
{
public:
    int32_t getBatchSize() const noexcept override
    {
        return 1;
    }
    bool getBatch(void* /*bindings*/[], char const* /*names*/[], int32_t /*nbBindings*/) noexcept override
    {
        return false;
    }
    void const* readCalibrationCache(std::size_t& length) noexcept override
    {
        length = 0;
        return nullptr;
    }
    void writeCalibrationCache(void const* /*ptr*/, std::size_t /*length*/) noexcept override { }
};

class NoListener final : public IDebugListener
{
public:
    bool processDebugTensor(void const* /*addr*/, TensorLocation /*location*/, DataType /*type*/, Dims const& /*shape*/,
        char const* /*name*/, cudaStream_t /*stream*/) override
    {
        return true;
    }
};

class ApplicationApi : public CpuNetworkTest
{
protected:
    void SetUp() override
    {
        CpuNetworkTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        ITensor* input = network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
        ITensor* relu = network->addActivation(*input, ActivationType::kRELU)->getOutput(0);
        // TensorRT's two-argument addFill: a kFLOAT linspace 0, 1, 2 ... added to the activation.
        IFillLayer* ramp = network->addFill(Dims{1, {6}}, FillOperation::kLINSPACE);
        ASSERT_NE(ramp, nullptr);
        ramp->setAlpha(0.0);
        ramp->setBeta(1.0);
        ITensor* sum = network->addElementWise(*relu, *ramp->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
        sum->setName("y");
        network->markOutput(*sum);
    }

    //! Runs `engine` on the fixed input and returns y.
    std::vector<float> run(ICudaEngine& engine, IRuntimeConfig* runtimeConfig = nullptr)
    {
        std::unique_ptr<IExecutionContext> context{
            runtimeConfig ? engine.createExecutionContext(runtimeConfig) : engine.createExecutionContext()};
        EXPECT_NE(context, nullptr);
        std::vector<float> x{-1, 2, -3, 4, -5, 6};
        std::vector<float> y(6, -100.0F);
        EXPECT_TRUE(context->setInputTensorAddress("x", x.data()));
        EXPECT_TRUE(context->setOutputTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr));
        return y;
    }
};

TEST_F(ApplicationApi, PlanThroughStreamWriterAndReadersRunsAsThePlanInMemory)
{
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<ICudaEngine> fromMemory{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(fromMemory, nullptr);
    std::vector<float> const expected = run(*fromMemory);
    EXPECT_EQ(expected, (std::vector<float>{0, 3, 2, 7, 4, 11}));

    VectorWriter writer;
    ASSERT_TRUE(builder->buildSerializedNetworkToStream(*network, *config, writer));
    ASSERT_EQ(writer.buffer.size(), plan->size());

    MemoryReader reader(writer.buffer);
    std::unique_ptr<ICudaEngine> fromReader{runtime->deserializeCudaEngine(reader)};
    ASSERT_NE(fromReader, nullptr);
    EXPECT_EQ(run(*fromReader), expected);

    SeekableReader seekable(writer.buffer);
    seekable.seek(10, SeekPosition::kSET); // Kiln seeks back to the start itself
    std::unique_ptr<ICudaEngine> fromSeekable{runtime->deserializeCudaEngine(seekable)};
    ASSERT_NE(fromSeekable, nullptr);
    EXPECT_EQ(run(*fromSeekable), expected);

    std::unique_ptr<ICudaEngine> built{builder->buildEngineWithConfig(*network, *config)};
    ASSERT_NE(built, nullptr);
    EXPECT_EQ(run(*built), expected);
    EXPECT_TRUE(logger.errors.empty());
}

TEST_F(ApplicationApi, TruncatedStreamIsAnError)
{
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    ASSERT_NE(plan, nullptr);
    std::vector<char> half(
        static_cast<char const*>(plan->data()), static_cast<char const*>(plan->data()) + plan->size() / 2);
    MemoryReader reader(half);
    EXPECT_EQ(runtime->deserializeCudaEngine(reader), nullptr);
    EXPECT_EQ(logger.take("IRuntime::deserializeCudaEngine"), 1U);
}

TEST_F(ApplicationApi, RuntimeAndSerializationConfigs)
{
    std::unique_ptr<ICudaEngine> engine{builder->buildEngineWithConfig(*network, *config)};
    ASSERT_NE(engine, nullptr);
    std::vector<float> const expected = run(*engine);

    std::unique_ptr<IRuntimeConfig> runtimeConfig{engine->createRuntimeConfig()};
    ASSERT_NE(runtimeConfig, nullptr);
    EXPECT_EQ(runtimeConfig->getExecutionContextAllocationStrategy(), ExecutionContextAllocationStrategy::kSTATIC);
    runtimeConfig->setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE);
    EXPECT_EQ(run(*engine, runtimeConfig.get()), expected);

    std::unique_ptr<ISerializationConfig> serialization{engine->createSerializationConfig()};
    ASSERT_NE(serialization, nullptr);
    EXPECT_TRUE(serialization->setFlag(SerializationFlag::kEXCLUDE_LEAN_RUNTIME));
    std::unique_ptr<IHostMemory> plan{engine->serializeWithConfig(*serialization)};
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<ICudaEngine> reloaded{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(reloaded, nullptr);
    EXPECT_EQ(run(*reloaded), expected);

    EXPECT_TRUE(serialization->setFlag(SerializationFlag::kEXCLUDE_WEIGHTS));
    EXPECT_EQ(engine->serializeWithConfig(*serialization), nullptr);
    EXPECT_EQ(logger.take("ICudaEngine::serializeWithConfig"), 1U);
}

TEST_F(ApplicationApi, EngineAndContextQueries)
{
    std::unique_ptr<ICudaEngine> engine{builder->buildEngineWithConfig(*network, *config)};
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(engine->getTensorFormat("y", 0), TensorFormat::kLINEAR);
    EXPECT_EQ(engine->getTensorVectorizedDim("y", 0), -1);
    EXPECT_EQ(engine->getTensorComponentsPerElement("x"), -1);
    EXPECT_STREQ(engine->getTensorFormatDesc("x"), "Row-major linear FP32 format");
    EXPECT_EQ(engine->getEngineCapability(), EngineCapability::kSTANDARD);
    EXPECT_FALSE(engine->isRefittable());
    EXPECT_EQ(engine->getNbAuxStreams(), 0);

    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr);
    Dims const strides = context->getTensorStrides("x");
    ASSERT_EQ(strides.nbDims, 1);
    EXPECT_EQ(strides.d[0], 1);
    EXPECT_EQ(context->inferShapes(0, nullptr), 0);
    NoListener listener;
    EXPECT_TRUE(context->setDebugListener(&listener));
    EXPECT_EQ(context->getDebugListener(), &listener);
    EXPECT_FALSE(context->setTensorDebugState("y", true));
    EXPECT_EQ(logger.take("IExecutionContext::setTensorDebugState"), 1U);
    EXPECT_FALSE(context->setOutputTensorAddress("x", nullptr));
    EXPECT_EQ(logger.take("IExecutionContext::setOutputTensorAddress"), 1U);
}

TEST_F(ApplicationApi, BuilderConfigOptionsAndPluginsToSerialize)
{
    char const* libraries[] = {"libfirst_plugins.so", "libsecond_plugins.so"};
    config->setPluginsToSerialize(libraries, 2);
    ASSERT_EQ(config->getNbPluginsToSerialize(), 2);
    EXPECT_STREQ(config->getPluginToSerialize(1), "libsecond_plugins.so");
    char const* twice[] = {"liba.so", "liba.so"};
    config->setPluginsToSerialize(twice, 2);
    EXPECT_EQ(logger.take("IBuilderConfig::setPluginsToSerialize"), 1U);
    EXPECT_EQ(config->getNbPluginsToSerialize(), 2); // unchanged

    config->setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
    EXPECT_EQ(config->getProfilingVerbosity(), ProfilingVerbosity::kDETAILED);
    EXPECT_TRUE(config->setTacticSources(1U << static_cast<uint32_t>(TacticSource::kEDGE_MASK_CONVOLUTIONS)));
    EXPECT_EQ(config->getTacticSources(), 1U << 3);
    EXPECT_EQ(config->getDefaultDeviceType(), DeviceType::kGPU);
    EXPECT_EQ(getBuilderPluginRegistry(EngineCapability::kSTANDARD), getPluginRegistry());
    EXPECT_EQ(getBuilderPluginRegistry(EngineCapability::kSAFETY), nullptr);
    // TensorRT 10.16: the multi-device preview feature is a stored setting; a directory as the internal library
    // path is accepted.
    EXPECT_FALSE(config->getPreviewFeature(PreviewFeature::kMULTIDEVICE_RUNTIME_10_16));
    config->setPreviewFeature(PreviewFeature::kMULTIDEVICE_RUNTIME_10_16, true);
    EXPECT_TRUE(config->getPreviewFeature(PreviewFeature::kMULTIDEVICE_RUNTIME_10_16));
    EXPECT_TRUE(setInternalLibraryPath(testing::TempDir().c_str()));
    EXPECT_TRUE(setInternalLibraryPath(""));
    EXPECT_TRUE(logger.errors.empty());
    EXPECT_FALSE(setInternalLibraryPath(nullptr));
    EXPECT_EQ(logger.take("setInternalLibraryPath: the path is null"), 1U);
    EXPECT_FALSE(setInternalLibraryPath("/nonexistent/kiln-internal-libraries"));
    EXPECT_EQ(logger.take("setInternalLibraryPath: \"/nonexistent/kiln-internal-libraries\" is not a directory"), 1U);

    // The plugins listed do not stop the build (Kiln records each plugin's library in the plan itself).
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    EXPECT_NE(plan, nullptr);
}

TEST_F(ApplicationApi, RefusedCallsReturnTheFailureValueAndNameTheCall)
{
    // Calibrators are kept (INT8 calibration: tests/calibration), with no error.
    NoCalibrator calibrator;
    config->setInt8Calibrator(&calibrator);
    EXPECT_EQ(config->getInt8Calibrator(), &calibrator);
    EXPECT_TRUE(logger.errors.empty());
    config->setInt8Calibrator(nullptr);

    config->setEngineCapability(EngineCapability::kSAFETY);
    EXPECT_EQ(config->getEngineCapability(), EngineCapability::kSTANDARD);
    EXPECT_EQ(logger.take("IBuilderConfig::setEngineCapability"), 1U);

    config->setDefaultDeviceType(DeviceType::kDLA);
    EXPECT_EQ(config->getDefaultDeviceType(), DeviceType::kGPU);
    EXPECT_EQ(logger.take("IBuilderConfig::setDefaultDeviceType"), 1U);

    std::unique_ptr<ICudaEngine> engine{builder->buildEngineWithConfig(*network, *config)};
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(createInferRefitter(*engine, logger), nullptr);
    EXPECT_EQ(logger.take("createInferRefitter"), 1U);
    EXPECT_FALSE(engine->setWeightStreamingBudgetV2(0));
    EXPECT_EQ(logger.take("ICudaEngine::setWeightStreamingBudgetV2"), 1U);
    EXPECT_EQ(runtime->loadRuntime("libnvinfer_lean.so"), nullptr);
    EXPECT_EQ(logger.take("IRuntime::loadRuntime"), 1U);
    EXPECT_EQ(engine->getProfileTensorValuesV2("x", 0, OptProfileSelector::kMIN), nullptr);
    EXPECT_EQ(logger.take("ICudaEngine::getProfileTensorValuesV2"), 1U);

    // TensorRT answers nullptr for every capability but kSAFETY; Kiln has no safety registry at all.
    EXPECT_EQ(getBuilderSafePluginRegistry(EngineCapability::kSTANDARD), nullptr);
    EXPECT_TRUE(logger.errors.empty());
    EXPECT_EQ(getBuilderSafePluginRegistry(EngineCapability::kSAFETY), nullptr);
    EXPECT_EQ(logger.take("getBuilderSafePluginRegistry: Kiln builds no safety engines"), 1U);
}

} // namespace
