// The builder's convolution tuning without a GPU, through a stand-in timer: convolutions that differ only in their
// fused epilogue are timed apart (cuDNN's graph engines are ranked for the graph with its epilogue, so a rank timed
// for one epilogue means nothing for another), identical ones share one timing, and a graph-engine choice lands in
// the plan as the timer gave it.
#include "backend/cuda/libraries/cudnn/convolution_graph.h"
#include "backend/cuda/passes/convolution_tuning.h"
#include "backend/timing_cache.h"
#include "backend_comparison.h"
#include "plan/plan_graph.h"
#include "serial/byte_io.h"

#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Answers every convolution with graph engine rank 3, and records the epilogue of each one it is asked to time.
class RecordingTimer final : public kiln::cuda::AlgorithmTimer
{
public:
    Result fastest(kiln::network::ConvolutionParams const&, kiln::plan::Epilogue const& epilogue, kiln::Shape const&,
        DataType, kiln::TensorFormat, size_t) override
    {
        relus.push_back(epilogue.relu());
        return Result{kiln::cuda::AlgorithmChoice::graphEngine(3), 1.0F};
    }
    Result fastestDeconvolution(
        kiln::network::DeconvolutionParams const&, kiln::Shape const&, DataType, size_t) override
    {
        return Result{kiln::cuda::AlgorithmChoice::perCall(0), 1.0F};
    }
    std::vector<bool> relus; //!< per timing: whether the convolution had a fused ReLU
};

std::vector<float> const kKernel = spread(8 * 8 * 9, -0.3F, 0.4F);
std::vector<float> const kBias = spread(8, -0.1F, 0.2F);

//! Three 3x3 convolutions over 8 channels with the same geometry and weights; only the first has a ReLU after it,
//! which the builder fuses into it.
void threeAlike(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {1, 8, 6, 6}});
    Weights const kernel{DataType::kFLOAT, kKernel.data(), static_cast<int64_t>(kKernel.size())};
    Weights const bias{DataType::kFLOAT, kBias.data(), static_cast<int64_t>(kBias.size())};
    ITensor* t = x;
    for (int i = 0; i < 3; ++i)
    {
        IConvolutionLayer* conv = network.addConvolutionNd(*t, 8, Dims{2, {3, 3}}, kernel, bias);
        conv->setPaddingNd(Dims{2, {1, 1}});
        t = conv->getOutput(0);
        if (i == 0)
        {
            t = network.addActivation(*t, ActivationType::kRELU)->getOutput(0);
        }
    }
    t->setName("y");
    network.markOutput(*t);
}

std::vector<kiln::plan::LayerRecord> convolutionsOf(kiln::plan::PlanModel const& model)
{
    std::vector<kiln::plan::LayerRecord> convolutions;
    std::copy_if(model.layers.begin(), model.layers.end(), std::back_inserter(convolutions),
        [](kiln::plan::LayerRecord const& layer) { return layer.type == LayerType::kCONVOLUTION; });
    return convolutions;
}

TEST(CudaBackendConvolutionTuning, EpiloguesAreTimedApartAndGraphChoicesLandInThePlan)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeAlike);
    std::vector<kiln::plan::LayerRecord> const built = convolutionsOf(model);
    ASSERT_EQ(built.size(), 3U);
    ASSERT_TRUE(built[0].epilogue.relu()) << "the first convolution's ReLU is fused into it";

    kiln::backend::TimingCache cache("stand-in GPU");
    RecordingTimer timer;
    kiln::cuda::ConvolutionTuning const tuning{cache, &timer, "stand-in GPU", size_t{1} << 30, false};
    std::string error;
    ASSERT_TRUE(kiln::cuda::tuneConvolutions(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); }, tuning, error))
        << error;
    // One timing with the ReLU, one for the two convolutions without: the same geometry, timed apart.
    EXPECT_EQ(timer.relus, (std::vector<bool>{true, false}));
    for (kiln::plan::LayerRecord const& convolution : convolutionsOf(model))
    {
        EXPECT_EQ(kiln::cuda::AlgorithmChoice::decode(convolution.backendChoice),
            kiln::cuda::AlgorithmChoice::graphEngine(3));
    }
}

} // namespace
