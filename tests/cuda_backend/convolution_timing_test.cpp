// The builder's timing of cuDNN algorithms: the choice lands in the plan, the timing cache answers a second build
// without timing (the same plan comes out), and a cache miss is an error when the application asks for that.
// Deconvolutions' backward-data algorithms are timed the same way.
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "network/layers/convolution.h"
#include "plan/plan_format.h"
#include "serial/byte_io.h"

#include <map>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

std::vector<float> const kKernel = spread(4 * 4 * 9, -0.3F, 0.4F);

//! Three 3x3 convolutions over 4 channels; the last two have the same configuration, so two are timed.
void threeConvolutions(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 4, 9, 8}});
    Weights const kernel{DataType::kFLOAT, kKernel.data(), static_cast<int64_t>(kKernel.size())};
    IConvolutionLayer* first = network.addConvolutionNd(*x, 4, Dims{2, {3, 3}}, kernel, Weights{});
    first->setName("first");
    IConvolutionLayer* second = network.addConvolutionNd(*first->getOutput(0), 4, Dims{2, {3, 3}}, kernel, Weights{});
    second->setPaddingNd(Dims{2, {1, 1}});
    second->setName("second");
    IConvolutionLayer* third = network.addConvolutionNd(*second->getOutput(0), 4, Dims{2, {3, 3}}, kernel, Weights{});
    third->setPaddingNd(Dims{2, {1, 1}});
    third->setName("third");
    third->getOutput(0)->setName("y");
    network.markOutput(*third->getOutput(0));
}

std::unique_ptr<IHostMemory> buildWith(RecordingLogger& logger, ITimingCache* cache, bool errorOnMiss)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    threeConvolutions(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    if (cache != nullptr)
    {
        EXPECT_TRUE(config->setTimingCache(*cache, false)) << logger.errors();
    }
    if (errorOnMiss)
    {
        config->setFlag(BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
    }
    return std::unique_ptr<IHostMemory>(builder->buildSerializedNetwork(*network, *config));
}

//! Each layer's timed algorithm; -1 for a layer that carries none.
std::vector<int32_t> algorithmsIn(IHostMemory const& plan)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(plan.data(), plan.size(), model, error)) << error;
    std::vector<int32_t> algorithms;
    for (auto const& layer : model.layers)
    {
        algorithms.push_back(kiln::cuda::AlgorithmChoice::decode(layer.backendChoice).index);
    }
    return algorithms;
}

//! Allocates with cudaMalloc and remembers what is live, to see that the builder's buffers come from it.
class TrackingAllocator final : public IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const, AllocatorFlags const) noexcept override
    {
        void* memory = nullptr;
        if (cudaMalloc(&memory, size) != cudaSuccess)
        {
            return nullptr;
        }
        live[memory] = size;
        ++allocations;
        return memory;
    }
    bool deallocate(void* const memory) noexcept override
    {
        if (live.erase(memory) == 0)
        {
            return false;
        }
        return cudaFree(memory) == cudaSuccess;
    }
    std::map<void*, uint64_t> live;
    int32_t allocations{0};
};

TEST(CudaBackendTiming, TheBuildersAllocatorHoldsTheTimingBuffers)
{
    SKIP_WITHOUT_GPU();
    TrackingAllocator allocator;
    RecordingLogger logger;
    {
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        builder->setGpuAllocator(&allocator);
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        threeConvolutions(*network);
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCUDA);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        ASSERT_NE(plan, nullptr) << logger.errors();
    }
    EXPECT_GE(allocator.allocations, 4) << "input, kernel, output and workspace of the timing";
    EXPECT_TRUE(allocator.live.empty()) << "the build gave every buffer back";
}

TEST(CudaBackendTiming, ACacheMissIsAnErrorWhenAskedFor)
{
    // No GPU needed: an empty cache misses before anything is timed.
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    std::unique_ptr<ITimingCache> cache(config->createTimingCache(nullptr, 0));
    EXPECT_EQ(buildWith(logger, cache.get(), true), nullptr);
    EXPECT_NE(logger.errors().find("layer \"first\": the timing cache has no entry for it"), std::string::npos)
        << logger.errors();
}

TEST(CudaBackendTiming, TheSecondBuildTakesEveryChoiceFromTheCache)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    std::unique_ptr<ITimingCache> cache(config->createTimingCache(nullptr, 0));
    std::unique_ptr<IHostMemory> const first = buildWith(logger, cache.get(), false);
    ASSERT_NE(first, nullptr) << logger.errors();
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 2); // "second" and "third" share a configuration
    for (int32_t algorithm : algorithmsIn(*first))
    {
        EXPECT_GE(algorithm, 0) << "every convolution of a plan built on a GPU carries its timed algorithm";
    }
    // Through serialization, as a cache file would carry it; every configuration must hit.
    std::unique_ptr<IHostMemory> const saved(cache->serialize());
    std::unique_ptr<ITimingCache> loaded(config->createTimingCache(saved->data(), saved->size()));
    ASSERT_NE(loaded, nullptr) << logger.errors();
    std::unique_ptr<IHostMemory> const second = buildWith(logger, loaded.get(), true);
    ASSERT_NE(second, nullptr) << logger.errors();
    EXPECT_EQ(algorithmsIn(*second), algorithmsIn(*first));
}

TEST(CudaBackendTiming, TimedAlgorithmsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({2, 4, 9, 8}, spread(2 * 4 * 9 * 8, -1.0F, 2.0F));
    expectBackendsAgree(threeConvolutions, {{"x", x}}, false, "fp32");
    expectBackendsAgree(threeConvolutions, {{"x", x}}, true, "fp16");
}

//! A strided deconvolution (upsampling, as in a decoder) from 4 to 3 maps.
void oneDeconvolution(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 4, 5, 6}});
    Weights const kernel{DataType::kFLOAT, kKernel.data(), 4 * 3 * 9};
    IDeconvolutionLayer* up = network.addDeconvolutionNd(*x, 3, Dims{2, {3, 3}}, kernel, Weights{});
    up->setStrideNd(Dims{2, {2, 2}});
    up->setPaddingNd(Dims{2, {1, 1}});
    up->getOutput(0)->setName("y");
    network.markOutput(*up->getOutput(0));
}

TEST(CudaBackendTiming, DeconvolutionsAreTimedAndCachedToo)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    oneDeconvolution(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<ITimingCache> cache(config->createTimingCache(nullptr, 0));
    ASSERT_TRUE(config->setTimingCache(*cache, false));
    std::unique_ptr<IHostMemory> const plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 1);
    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    ASSERT_EQ(model.layers.size(), 1U);
    EXPECT_GE(kiln::cuda::AlgorithmChoice::decode(model.layers[0].backendChoice).index, 0)
        << "a deconvolution of a plan built on a GPU carries its timed algorithm";

    HostTensor const x = fromFloats({2, 4, 5, 6}, spread(2 * 4 * 5 * 6, -1.0F, 2.0F));
    expectBackendsAgree(oneDeconvolution, {{"x", x}}, false, "fp32");
    expectBackendsAgree(oneDeconvolution, {{"x", x}}, true, "fp16");
}

} // namespace
