// The builder keeps FP16 convolutions channels-last only where they time faster than linear. The timer here is a
// stand-in with fixed times, so the choice is checked without a GPU; the real timer is tests/cuda_backend's
// convolution_timing_test.
#include "backend_comparison.h"
#include "backend/cuda/passes/channels_last.h"
#include "backend/cuda/passes/convolution_tuning.h"
#include "plan/plan_graph.h"
#include "backend/timing_cache.h"

#include <kiln/ConvolutionLayout.h>

#include <stdexcept>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Reports `channelsLastMs` for every channels-last convolution and `linearMs` for every linear one, counting calls.
class FixedTimer final : public kiln::cuda::AlgorithmTimer
{
public:
    FixedTimer(float channelsLastMs, float linearMs)
        : mChannelsLastMs(channelsLastMs)
        , mLinearMs(linearMs)
    {
    }
    Result fastest(kiln::network::ConvolutionParams const&, kiln::plan::Epilogue const&, kiln::Shape const&, DataType,
        kiln::TensorFormat format, size_t) override
    {
        ++calls;
        if (failsLinear && format == TensorFormat::kLINEAR)
        {
            throw std::runtime_error("convolution: no cuDNN algorithm ran within the workspace limit");
        }
        return format == TensorFormat::kHWC ? Result{kiln::cuda::AlgorithmChoice::perCall(1), mChannelsLastMs}
                                            : Result{kiln::cuda::AlgorithmChoice::perCall(0), mLinearMs};
    }
    Result fastestDeconvolution(
        kiln::network::DeconvolutionParams const&, kiln::Shape const&, DataType, size_t) override
    {
        ++calls;
        return Result{kiln::cuda::AlgorithmChoice::perCall(0), mLinearMs};
    }
    int32_t calls{0};
    bool failsLinear{false}; //!< as if cuDNN could not time the linear layout

private:
    float mChannelsLastMs;
    float mLinearMs;
};

std::vector<float> const kKernel = spread(8 * 8 * 9, -0.3F, 0.4F);

//! Two 3x3 convolutions over 8 channels: an FP16 CUDA plan stores them channels-last.
void twoConvolutions(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {1, 8, 6, 6}});
    Weights const kernel{DataType::kFLOAT, kKernel.data(), static_cast<int64_t>(kKernel.size())};
    IConvolutionLayer* first = network.addConvolutionNd(*x, 8, Dims{2, {3, 3}}, kernel, Weights{});
    first->setPaddingNd(Dims{2, {1, 1}});
    IConvolutionLayer* second = network.addConvolutionNd(*first->getOutput(0), 8, Dims{2, {3, 3}}, kernel, Weights{});
    second->getOutput(0)->setName("y");
    network.markOutput(*second->getOutput(0));
}

struct Comparison
{
    bool ok{false};
    bool channelsLastFaster{false};
    std::string error;
};

Comparison compare(kiln::plan::PlanModel const& model, kiln::backend::TimingCache& cache,
    kiln::cuda::AlgorithmTimer* timer, bool errorOnCacheMiss = false)
{
    kiln::cuda::ConvolutionTuning const tuning{cache, timer, "stand-in GPU", size_t{1} << 30, errorOnCacheMiss};
    Comparison result;
    result.ok = kiln::cuda::channelsLastIsFaster(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); }, tuning, result.channelsLastFaster,
        result.error);
    return result;
}

//! The plan as chooseChannelsLast leaves it, before any timing: what channelsLastIsFaster is given.
kiln::plan::PlanModel channelsLastPlan()
{
    return cudaPlanOf(twoConvolutions, true,
        [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); });
}

bool anyChannelsLast(kiln::plan::PlanModel const& model)
{
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.format == TensorFormat::kHWC)
        {
            return true;
        }
    }
    return false;
}

TEST(CudaBackendLayoutTiming, TheFasterLayoutByTheConvolutionsTimesWins)
{
    kiln::plan::PlanModel model = channelsLastPlan();
    ASSERT_TRUE(anyChannelsLast(model));

    kiln::backend::TimingCache cache("stand-in GPU");
    FixedTimer slowerChannelsLast(2.0F, 1.0F);
    Comparison const first = compare(model, cache, &slowerChannelsLast);
    ASSERT_TRUE(first.ok) << first.error;
    EXPECT_FALSE(first.channelsLastFaster);
    EXPECT_EQ(slowerChannelsLast.calls, 2 * 2) << "each convolution timed once in each layout";
    // The cache answers a second comparison without timing again.
    Comparison const second = compare(model, cache, &slowerChannelsLast);
    EXPECT_TRUE(second.ok && !second.channelsLastFaster);
    EXPECT_EQ(slowerChannelsLast.calls, 4);

    kiln::backend::TimingCache otherCache("stand-in GPU");
    FixedTimer fasterChannelsLast(0.5F, 1.0F);
    Comparison const third = compare(model, otherCache, &fasterChannelsLast);
    EXPECT_TRUE(third.ok && third.channelsLastFaster) << third.error;

    kiln::cuda::storeLinear(model);
    EXPECT_FALSE(anyChannelsLast(model));
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        EXPECT_TRUE(layer.ioFormats.empty()) << layer.name;
    }
}

TEST(CudaBackendLayoutTiming, WithNothingToTimeByChannelsLastStays)
{
    kiln::plan::PlanModel const model = channelsLastPlan();
    kiln::backend::TimingCache cache("stand-in GPU");
    Comparison const untimed = compare(model, cache, nullptr);
    EXPECT_TRUE(untimed.ok && untimed.channelsLastFaster) << untimed.error;

    // A layout that cannot be timed leaves the comparison undecided rather than failing the build.
    FixedTimer failing(2.0F, 1.0F);
    failing.failsLinear = true;
    Comparison const undecided = compare(model, cache, &failing);
    EXPECT_TRUE(undecided.ok && undecided.channelsLastFaster) << undecided.error;

    // With the miss flag, an empty cache is an error that names the layer, as for the algorithm choice itself.
    kiln::backend::TimingCache emptyCache("stand-in GPU");
    Comparison const strict = compare(model, emptyCache, nullptr, true);
    EXPECT_FALSE(strict.ok);
    EXPECT_NE(strict.error.find("kERROR_ON_TIMING_CACHE_MISS"), std::string::npos) << strict.error;
}

} // namespace
