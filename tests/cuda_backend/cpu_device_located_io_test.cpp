// A CPU plan with KILN_CPU_TENSOR_LOCATION=device on a machine with a GPU, as NVIDIA's trtexec runs it: managed
// memory that work on a stream wrote before enqueueV3 is read after that work (the run waits for the stream), the
// outputs are there for work queued after it, and device memory (cudaMalloc's) is refused with an error naming the
// tensor instead of faulting on the host.
#include "backend_comparison.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Sets KILN_CPU_TENSOR_LOCATION=device for one test and puts back what was there.
class DeviceLocation
{
public:
    DeviceLocation()
    {
        if (char const* old = std::getenv(kName))
        {
            mOld = old;
        }
        setenv(kName, "device", 1);
    }
    ~DeviceLocation()
    {
        if (mOld)
        {
            setenv(kName, mOld->c_str(), 1);
        }
        else
        {
            unsetenv(kName);
        }
    }
    DeviceLocation(DeviceLocation const&) = delete;
    DeviceLocation& operator=(DeviceLocation const&) = delete;

private:
    static constexpr char const* kName = "KILN_CPU_TENSOR_LOCATION";
    std::optional<std::string> mOld;
};

constexpr int64_t kCount = 1 << 20; // large enough that the copy on the stream is still running at enqueue

//! A CPU engine of y = relu(x) over kCount floats, loaded with device-located I/O.
struct DeviceLocatedCpuEngine
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;

    DeviceLocatedCpuEngine()
    {
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {kCount}});
        IActivationLayer* relu = network->addActivation(*x, ActivationType::kRELU);
        relu->getOutput(0)->setName("y");
        network->markOutput(*relu->getOutput(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCPU);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << logger.errors();
        DeviceLocation location;
        runtime.reset(createInferRuntime(logger));
        engine.reset(runtime->deserializeCudaEngine(plan->data(), plan->size()));
        EXPECT_NE(engine, nullptr) << logger.errors();
    }
};

TEST(CpuDeviceLocatedIo, ManagedMemoryWrittenOnTheStreamIsReadAfterIt)
{
    SKIP_WITHOUT_GPU();
    DeviceLocatedCpuEngine cpu;
    ASSERT_NE(cpu.engine, nullptr);
    EXPECT_EQ(cpu.engine->getTensorLocation("x"), TensorLocation::kDEVICE);
    void* managedX = nullptr;
    void* managedY = nullptr;
    void* source = nullptr;
    ASSERT_EQ(cudaMallocManaged(&managedX, kCount * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMallocManaged(&managedY, kCount * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&source, kCount * sizeof(float)), cudaSuccess);
    auto* x = static_cast<float*>(managedX);
    auto* y = static_cast<float*>(managedY);
    std::vector<float> values(kCount);
    for (int64_t i = 0; i < kCount; ++i)
    {
        values[i] = static_cast<float>(i % 7) - 3.0F;
        x[i] = -100.0F; // what the run would see if it did not wait for the copy
    }
    ASSERT_EQ(cudaMemcpy(source, values.data(), kCount * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

    std::unique_ptr<IExecutionContext> context(cpu.engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << cpu.logger.errors();
    ASSERT_TRUE(context->setTensorAddress("x", x));
    ASSERT_TRUE(context->setTensorAddress("y", y));
    ASSERT_EQ(cudaMemcpyAsync(x, source, kCount * sizeof(float), cudaMemcpyDeviceToDevice, stream), cudaSuccess);
    ASSERT_TRUE(context->enqueueV3(stream)) << cpu.logger.errors();
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    for (int64_t i = 0; i < kCount; ++i)
    {
        ASSERT_EQ(y[i], std::max(values[i], 0.0F)) << "element " << i;
    }

    // Device memory the host cannot read is refused, naming the tensor.
    ASSERT_TRUE(context->setTensorAddress("x", source));
    EXPECT_FALSE(context->enqueueV3(stream));
    EXPECT_NE(cpu.logger.errors().find("the memory of \"x\""), std::string::npos) << cpu.logger.errors();
    EXPECT_NE(cpu.logger.errors().find("device memory of GPU"), std::string::npos) << cpu.logger.errors();

    cudaStreamDestroy(stream);
    cudaFree(source);
    cudaFree(y);
    cudaFree(x);
}

} // namespace
