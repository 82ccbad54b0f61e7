// The CUDA backend's NonZero layer and data-dependent shapes against the CPU reference: every input type (-0.0 zero,
// NaN non-zero), ranks 0 to 4, INT32 and INT64 indices, all-zero and all-non-zero inputs, an input of many blocks
// (the selection's order across blocks), a gather by the positions and a shape computed from them with the count
// changing between runs of one context on a stream, and a V3 plugin's size tensor written in device memory. Without a
// GPU, that the CUDA plans build.
#include "backend_comparison.h"
#include "positive_select_plugin.h"

#include <cstdint>
#include <limits>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! NonZero of input "x" (`type`, `dims`) as output "y" with `indicesType`.
NetworkMaker nonZeroOf(DataType type, Dims const& dims, DataType indicesType = DataType::kINT64)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dims);
        INonZeroLayer* layer = network.addNonZero(*x);
        ASSERT_NE(layer, nullptr);
        layer->setIndicesType(indicesType);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

//! Every third element non-zero (and a -0.0 or NaN among them for floating-point types).
HostTensor sparseInput(DataType type, kiln::Shape const& shape)
{
    auto const n = static_cast<size_t>(kiln::volume(shape));
    if (kiln::isFloatType(type))
    {
        std::vector<float> values(n, 0.0F);
        for (size_t i = 0; i < n; ++i)
        {
            values[i] = i % 3 == 0 ? static_cast<float>(i % 7) - 3.0F : (i % 5 == 1 ? -0.0F : 0.0F);
        }
        if (n > 2)
        {
            values[2] = std::numeric_limits<float>::quiet_NaN();
        }
        return fromFloats(shape, values, type);
    }
    std::vector<int64_t> values(n, 0);
    for (size_t i = 0; i < n; ++i)
    {
        values[i] = i % 3 == 0 ? static_cast<int64_t>(i % 2) : 0;
    }
    return fromInts(shape, values, type);
}

Dims dimsOf(kiln::Shape const& shape)
{
    Dims d{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), d.d);
    return d;
}

TEST(CudaNonZero, EveryTypeAndRankMatchesTheReference)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        for (kiln::Shape const& shape :
            {kiln::Shape{}, kiln::Shape{7}, kiln::Shape{3, 5}, kiln::Shape{2, 3, 4}, kiln::Shape{2, 1, 3, 5}})
        {
            std::string const what = kiln::dataTypeName(type) + " rank " + std::to_string(shape.size());
            expectBackendsAgree(nonZeroOf(type, dimsOf(shape)), {{"x", sparseInput(type, shape)}}, false, what);
        }
    }
}

TEST(CudaNonZero, Int32IndicesAllZeroAllNonZeroAndManyBlocks)
{
    SKIP_WITHOUT_GPU();
    kiln::Shape const big{3, 1000, 7};
    expectBackendsAgree(nonZeroOf(DataType::kFLOAT, dimsOf(big), DataType::kINT32),
        {{"x", sparseInput(DataType::kFLOAT, big)}}, false, "INT32 indices, many blocks");
    expectBackendsAgree(
        nonZeroOf(DataType::kFLOAT, Dims{2, {4, 5}}), {{"x", zeros({4, 5}, DataType::kFLOAT)}}, false, "all zero");
    expectBackendsAgree(nonZeroOf(DataType::kINT32, Dims{2, {3, 3}}),
        {{"x", fromInts({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, DataType::kINT32)}}, false, "all non-zero");
    HostTensor const y = runOn(kiln::Backend::kCUDA, nonZeroOf(DataType::kFLOAT, Dims{2, {2, 3}}),
        {{"x", fromFloats({2, 3}, {1, 0, 2, 0, -3, 0})}})
                             .at("y");
    EXPECT_EQ(y.ints(), (std::vector<int64_t>{0, 0, 1, 0, 2, 1}));
}

TEST(CudaNonZero, CountChangesBetweenRunsOfOneContextOnAStream)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    INonZeroLayer* positions = network->addNonZero(*x);
    IShuffleLayer* flat = network->addShuffle(*positions->getOutput(0));
    flat->setReshapeDimensions(Dims{1, {-1}});
    ITensor* picked = network->addGather(*x, *flat->getOutput(0), 0)->getOutput(0);
    picked->setName("picked");
    network->markOutput(*picked);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{1, {1}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{1, {64}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{1, {4096}});
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> blob(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(blob, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob->data(), blob->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::unique_ptr<RecordingOutputAllocator> allocator = outputAllocatorFor(kiln::Backend::kCUDA);
    ASSERT_TRUE(context->setOutputAllocator("picked", allocator.get()));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (int64_t n : {5, 4096, 1, 300})
    {
        std::vector<float> values(static_cast<size_t>(n));
        std::vector<float> expected;
        for (int64_t i = 0; i < n; ++i)
        {
            values[static_cast<size_t>(i)] = (i * 13) % 4 == 0 ? static_cast<float>(i) + 0.5F : 0.0F;
            if (values[static_cast<size_t>(i)] != 0.0F)
            {
                expected.push_back(values[static_cast<size_t>(i)]);
            }
        }
        DeviceCopy const input(fromFloats({n}, values).bytes);
        ASSERT_TRUE(context->setInputShape("x", Dims{1, {n}}));
        ASSERT_TRUE(context->setTensorAddress("x", input.data));
        ASSERT_TRUE(context->enqueueV3(stream)) << logger.errors();
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        auto const count = static_cast<int64_t>(expected.size());
        EXPECT_EQ(allocator->shapes.back(), (std::vector<int64_t>{count}));
        EXPECT_EQ(allocator->sizes.back(), static_cast<uint64_t>(count) * 4);
        std::vector<float> got(expected.size());
        ASSERT_EQ(cudaMemcpy(got.data(), allocator->memory(), got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(got, expected) << n;
    }
    cudaStreamDestroy(stream);
}

//! The plugin's device enqueue: the selection on the host, between copies, for the test's sake.
int32_t selectOnTheHost(float const* input, int64_t elements, float* values, int32_t* count, cudaStream_t stream)
{
    std::vector<float> in(static_cast<size_t>(elements));
    std::vector<float> out(static_cast<size_t>(elements));
    if (cudaMemcpyAsync(in.data(), input, in.size() * 4, cudaMemcpyDeviceToHost, stream) != cudaSuccess
        || cudaStreamSynchronize(stream) != cudaSuccess)
    {
        return 1;
    }
    int32_t const kept = selectPositives(in.data(), elements, out.data());
    bool const copied = cudaMemcpy(values, out.data(), static_cast<size_t>(kept) * 4, cudaMemcpyHostToDevice)
            == cudaSuccess
        && cudaMemcpy(count, &kept, sizeof(kept), cudaMemcpyHostToDevice) == cudaSuccess;
    return copied ? 0 : 1;
}

TEST(CudaNonZero, PluginSizeTensorInDeviceMemory)
{
    PositiveSelectCreator::registerOnce();
    auto const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {6}});
        PositiveSelectPlugin plugin;
        IPluginV3Layer* layer = network.addPluginV3(&x, 1, nullptr, 0, plugin);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("values");
        network.markOutput(*layer->getOutput(0));
        ITensor* doubled
            = network.addElementWise(*layer->getOutput(0), *layer->getOutput(0), ElementWiseOperation::kSUM)
                  ->getOutput(0);
        doubled->setName("doubled");
        network.markOutput(*doubled);
    };
    RecordingLogger logger;
    EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, maker, false, {}), nullptr);
    SKIP_WITHOUT_GPU();
    PositiveSelectSettings::deviceEnqueue = selectOnTheHost;
    auto const outputs = runOn(kiln::Backend::kCUDA, maker, {{"x", fromFloats({6}, {3, -1, 0, 2, 5, -4})}}, false);
    PositiveSelectSettings::deviceEnqueue = nullptr;
    ASSERT_EQ(outputs.count("values"), 1U);
    EXPECT_EQ(outputs.at("values").floats(), (std::vector<float>{3, 2, 5}));
    EXPECT_EQ(outputs.at("doubled").floats(), (std::vector<float>{6, 4, 10}));
}

TEST(CudaNonZero, PlansBuildWithoutAGpu)
{
    RecordingLogger logger;
    EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, nonZeroOf(DataType::kHALF, Dims{2, {3, 4}}), false, {}), nullptr);
}

} // namespace
