// Shape-tensor network inputs on the CUDA backend: their values stay in host memory, as in TensorRT, decide the
// shapes at every run, and layers that read them as data get a device copy.
#include "backend_comparison.h"

#include <array>
#include <numeric>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

TEST(CudaBackendShapeInputs, HostValuesDecideTheShapesAndDeviceLayersReadACopy)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {2, 6}});
    ITensor* s = network->addInput("s", DataType::kINT32, Dims{1, {2}});
    IShuffleLayer* reshape = network->addShuffle(*x);
    reshape->setInput(1, *s);
    reshape->getOutput(0)->setName("y");
    network->markOutput(*reshape->getOutput(0));
    // A cast to FLOAT is data, not a shape: the layer runs on the GPU and reads the device copy of "s".
    ICastLayer* cast = network->addCast(*s, DataType::kFLOAT);
    cast->getOutput(0)->setName("sf");
    network->markOutput(*cast->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    int32_t const low[] = {1, 1};
    int32_t const opt[] = {3, 4};
    int32_t const high[] = {12, 12};
    profile->setShapeValues("s", OptProfileSelector::kMIN, low, 2);
    profile->setShapeValues("s", OptProfileSelector::kOPT, opt, 2);
    profile->setShapeValues("s", OptProfileSelector::kMAX, high, 2);
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    EXPECT_TRUE(engine->isShapeInferenceIO("s"));
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();

    std::vector<float> hostX(12);
    std::iota(hostX.begin(), hostX.end(), 0.0F);
    void* deviceX = nullptr;
    void* deviceY = nullptr;
    void* deviceSf = nullptr;
    ASSERT_EQ(cudaMalloc(&deviceX, 12 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&deviceY, 12 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&deviceSf, 2 * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(deviceX, hostX.data(), 12 * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    int32_t shape[] = {3, 4}; // host memory, read at every enqueue
    ASSERT_TRUE(context->setTensorAddress("x", deviceX));
    ASSERT_TRUE(context->setInputTensorAddress("s", shape));
    ASSERT_TRUE(context->setTensorAddress("y", deviceY));
    ASSERT_TRUE(context->setTensorAddress("sf", deviceSf));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (auto const& values : {std::array<int32_t, 2>{3, 4}, std::array<int32_t, 2>{6, 2}})
    {
        shape[0] = values[0];
        shape[1] = values[1];
        Dims const y = context->getTensorShape("y");
        EXPECT_EQ(y.nbDims, 2);
        EXPECT_EQ(y.d[0], values[0]);
        EXPECT_EQ(y.d[1], values[1]);
        ASSERT_TRUE(context->enqueueV3(stream)) << logger.errors();
        std::vector<float> hostY(12, -1.0F);
        std::vector<float> hostSf(2, -1.0F);
        ASSERT_EQ(
            cudaMemcpyAsync(hostY.data(), deviceY, 12 * sizeof(float), cudaMemcpyDeviceToHost, stream), cudaSuccess);
        ASSERT_EQ(
            cudaMemcpyAsync(hostSf.data(), deviceSf, 2 * sizeof(float), cudaMemcpyDeviceToHost, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        EXPECT_EQ(hostY, hostX); // a reshape keeps the elements in order
        EXPECT_EQ(hostSf, (std::vector<float>{static_cast<float>(values[0]), static_cast<float>(values[1])}));
    }
    cudaStreamDestroy(stream);
    cudaFree(deviceX);
    cudaFree(deviceY);
    cudaFree(deviceSf);
}

} // namespace
