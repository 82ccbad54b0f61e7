// KILN_CPU_TENSOR_LOCATION: an application written for TensorRT (NVIDIA's trtexec) gives addresses only to tensors
// whose getTensorLocation is kDEVICE. With the variable at `device`, a CPU engine reports its I/O so (shape-tensor
// inputs stay kHOST, as in TensorRT) and runs on memory the host reaches; unset or `host`, nothing changes; any
// other value fails the engine's load with an error naming the variable. Without a GPU (CI), every address is the
// host's, and a run on a CUDA stream is refused, since no stream can exist.
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

constexpr char const* kVariable = "KILN_CPU_TENSOR_LOCATION";

//! Sets KILN_CPU_TENSOR_LOCATION (or unsets it, for nullptr) for one test and puts back what was there.
class LocationVariable
{
public:
    explicit LocationVariable(char const* value)
    {
        if (char const* old = std::getenv(kVariable))
        {
            mOld = old;
        }
        if (value != nullptr)
        {
            setenv(kVariable, value, 1);
        }
        else
        {
            unsetenv(kVariable);
        }
    }
    ~LocationVariable()
    {
        if (mOld)
        {
            setenv(kVariable, mOld->c_str(), 1);
        }
        else
        {
            unsetenv(kVariable);
        }
    }
    LocationVariable(LocationVariable const&) = delete;
    LocationVariable& operator=(LocationVariable const&) = delete;

private:
    std::optional<std::string> mOld;
};

//! A CPU plan of y = relu(x), x of shape (4), and of `shape` = shape(relu(reshape(x, s))) with `s` a shape input.
struct CpuPlan
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IHostMemory> plan;

    CpuPlan()
    {
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
        ITensor* s = network->addInput("s", DataType::kINT64, Dims{1, {2}});
        IActivationLayer* relu = network->addActivation(*x, ActivationType::kRELU);
        relu->getOutput(0)->setName("y");
        network->markOutput(*relu->getOutput(0));
        IShuffleLayer* reshape = network->addShuffle(*relu->getOutput(0));
        reshape->setInput(1, *s);
        IShapeLayer* shape = network->addShape(*reshape->getOutput(0));
        shape->getOutput(0)->setName("shape");
        network->markOutput(*shape->getOutput(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        int64_t const sizes[2] = {2, 2};
        profile->setShapeValuesV2("s", OptProfileSelector::kMIN, sizes, 2);
        profile->setShapeValuesV2("s", OptProfileSelector::kOPT, sizes, 2);
        profile->setShapeValuesV2("s", OptProfileSelector::kMAX, sizes, 2);
        config->addOptimizationProfile(profile);
        kiln::setBackend(*config, kiln::Backend::kCPU);
        plan.reset(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << logger.errors();
    }

    std::unique_ptr<ICudaEngine> load(IRuntime& runtime) const
    {
        return std::unique_ptr<ICudaEngine>(runtime.deserializeCudaEngine(plan->data(), plan->size()));
    }
};

//! Runs the engine on host memory with `stream`; the outputs when it ran.
std::optional<std::vector<float>> run(ICudaEngine& engine, cudaStream_t stream)
{
    std::unique_ptr<IExecutionContext> context(engine.createExecutionContext());
    std::vector<float> const x{-1.0F, 2.0F, -3.0F, 4.0F};
    int64_t const s[2] = {2, 2};
    std::vector<float> y(4, -7.0F);
    std::vector<int64_t> shape(2, -1);
    EXPECT_TRUE(context->setInputTensorAddress("x", x.data()));
    EXPECT_TRUE(context->setInputTensorAddress("s", s));
    EXPECT_TRUE(context->setTensorAddress("y", y.data()));
    EXPECT_TRUE(context->setTensorAddress("shape", shape.data()));
    if (!context->enqueueV3(stream))
    {
        return std::nullopt;
    }
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 2}));
    return y;
}

std::vector<float> const kRelu{0.0F, 2.0F, 0.0F, 4.0F};

TEST(CpuTensorLocation, UnsetOrHostKeepsIoOnTheHost)
{
    CpuPlan cpu;
    ASSERT_NE(cpu.plan, nullptr);
    for (char const* value : {static_cast<char const*>(nullptr), "", "host"})
    {
        LocationVariable variable(value);
        std::unique_ptr<IRuntime> runtime(createInferRuntime(cpu.logger));
        std::unique_ptr<ICudaEngine> engine = cpu.load(*runtime);
        ASSERT_NE(engine, nullptr) << cpu.logger.errors();
        for (char const* name : {"x", "s", "y", "shape"})
        {
            EXPECT_EQ(engine->getTensorLocation(name), TensorLocation::kHOST) << name;
        }
        EXPECT_EQ(run(*engine, nullptr), kRelu);
    }
}

TEST(CpuTensorLocation, DeviceReportsIoOnTheDeviceAndRunsOnHostMemory)
{
    CpuPlan cpu;
    ASSERT_NE(cpu.plan, nullptr);
    LocationVariable variable("device");
    std::unique_ptr<IRuntime> runtime(createInferRuntime(cpu.logger));
    std::unique_ptr<ICudaEngine> engine = cpu.load(*runtime);
    if (engine == nullptr)
    {
        ASSERT_NE(cpu.logger.errors().find("KILN_CPU_TENSOR_LOCATION=device: this build of Kiln has no CUDA backend"),
            std::string::npos)
            << cpu.logger.errors();
        GTEST_SKIP() << "this build of Kiln has no CUDA backend, so no device location";
    }
    EXPECT_EQ(engine->getTensorLocation("x"), TensorLocation::kDEVICE);
    EXPECT_EQ(engine->getTensorLocation("y"), TensorLocation::kDEVICE);
    EXPECT_EQ(engine->getTensorLocation("shape"), TensorLocation::kDEVICE);
    EXPECT_EQ(engine->getTensorLocation("s"), TensorLocation::kHOST); // a shape-tensor input, as in TensorRT
    EXPECT_EQ(run(*engine, nullptr), kRelu);
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        // No GPU: no stream can exist, so a run given one is refused rather than left unordered.
        int fakeStream = 0;
        EXPECT_EQ(run(*engine, reinterpret_cast<cudaStream_t>(&fakeStream)), std::nullopt);
        EXPECT_NE(cpu.logger.errors().find("a CUDA stream was given, but"), std::string::npos) << cpu.logger.errors();
    }
}

TEST(CpuTensorLocation, OtherValuesFailTheLoadNamingTheVariable)
{
    CpuPlan cpu;
    ASSERT_NE(cpu.plan, nullptr);
    LocationVariable variable("gpu");
    std::unique_ptr<IRuntime> runtime(createInferRuntime(cpu.logger));
    EXPECT_EQ(cpu.load(*runtime), nullptr);
    EXPECT_NE(
        cpu.logger.errors().find("KILN_CPU_TENSOR_LOCATION is \"gpu\": it names no tensor location"), std::string::npos)
        << cpu.logger.errors();
}

} // namespace
