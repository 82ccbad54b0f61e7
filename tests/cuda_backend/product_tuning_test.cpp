// The builder's choice of cuBLASLt algorithms without a GPU, through a stand-in timer: the rank it times fastest lands
// in the plan, identical products share one timing, the timing cache answers a later build, and a product that cannot
// be timed, or one reading a tensor a pass added, keeps the heuristic's first choice.
#include "backend/cuda/passes/product_tuning.h"
#include "backend/timing_cache.h"
#include "backend_comparison.h"
#include "plan/plan_graph.h"

#include <stdexcept>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::AlgorithmChoice;

//! Answers every product with rank `rank`, counting the products it is asked to time; throws where `fails`.
class StandInTimer final : public kiln::cuda::ProductAlgorithmTimer
{
public:
    Result fastest(kiln::network::MatrixMultiplyParams const&, kiln::plan::Epilogue const&, kiln::Shape const& input0,
        kiln::Shape const& input1, DataType) override
    {
        timed.push_back({input0, input1});
        if (fails)
        {
            throw std::runtime_error("cuBLASLt has no algorithm for it");
        }
        return Result{
            answer.source == AlgorithmChoice::Source::kHEURISTIC ? AlgorithmChoice::gemm(rank) : answer, 0.5F};
    }
    int32_t rank{5};
    AlgorithmChoice answer; //!< where set, answered instead of a rank (as a damaged cache would hold it)
    bool fails{false};
    std::vector<std::pair<kiln::Shape, kiln::Shape>> timed; //!< the input shapes of each product timed
};

std::vector<float> const kWeights = spread(16 * 8, -0.3F, 0.4F);
std::vector<float> const kOtherWeights = spread(8 * 4, -0.2F, 0.5F);

//! x and x2 [2, 16] each times the same [16, 8] weights ("first" and "same": of other inputs, so that the builder does
//! not merge them), then their sum times [8, 4] ("other").
void threeProducts(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {2, 16}});
    ITensor* x2 = network.addInput("x2", DataType::kFLOAT, Dims{2, {2, 16}});
    ITensor* w
        = network.addConstant(Dims{2, {16, 8}}, Weights{DataType::kFLOAT, kWeights.data(), 16 * 8})->getOutput(0);
    ITensor* v
        = network.addConstant(Dims{2, {8, 4}}, Weights{DataType::kFLOAT, kOtherWeights.data(), 8 * 4})->getOutput(0);
    IMatrixMultiplyLayer* first = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
    first->setName("first");
    IMatrixMultiplyLayer* same = network.addMatrixMultiply(*x2, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
    same->setName("same");
    ITensor* sum
        = network.addElementWise(*first->getOutput(0), *same->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
    IMatrixMultiplyLayer* other = network.addMatrixMultiply(*sum, MatrixOperation::kNONE, *v, MatrixOperation::kNONE);
    other->setName("other");
    other->getOutput(0)->setName("y");
    network.markOutput(*other->getOutput(0));
}

std::vector<kiln::plan::LayerRecord const*> productsOf(kiln::plan::PlanModel const& model)
{
    return layersOfType(model, LayerType::kMATRIX_MULTIPLY);
}

//! Tunes `model`'s products as the CUDA backend does, every tensor being the network's.
bool tune(kiln::plan::PlanModel& model, kiln::cuda::ProductTuning const& tuning, std::string& error)
{
    return kiln::cuda::tuneProducts(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); },
        static_cast<int32_t>(model.tensors.size()), tuning, error);
}

TEST(CudaProductTuning, TheFastestRankLandsInThePlanAndIdenticalProductsShareATiming)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeProducts);
    ASSERT_EQ(productsOf(model).size(), 3U);
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    std::string error;
    ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
    // "first" and "same" multiply the same shapes: one timing serves both.
    ASSERT_EQ(timer.timed.size(), 2U);
    EXPECT_EQ(timer.timed[0].first, (kiln::Shape{2, 16}));
    EXPECT_EQ(timer.timed[0].second, (kiln::Shape{16, 8}));
    EXPECT_EQ(timer.timed[1].second, (kiln::Shape{8, 4}));
    for (kiln::plan::LayerRecord const* product : productsOf(model))
    {
        EXPECT_EQ(AlgorithmChoice::decode(product->backendChoice), AlgorithmChoice::gemm(5)) << product->name;
    }

    // A later build with the cache and no GPU takes the cached ranks.
    kiln::plan::PlanModel rebuilt = cudaPlanOf(threeProducts);
    ASSERT_TRUE(tune(rebuilt, kiln::cuda::ProductTuning{cache, nullptr, "stand-in GPU", true}, error)) << error;
    for (kiln::plan::LayerRecord const* product : productsOf(rebuilt))
    {
        EXPECT_EQ(AlgorithmChoice::decode(product->backendChoice), AlgorithmChoice::gemm(5)) << product->name;
    }
}

TEST(CudaProductTuning, ACachedTacticThatIsNoCublasLtRankLeavesTheHeuristic)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer convolutionLike;
    convolutionLike.answer = AlgorithmChoice::perCall(1);
    std::string error;
    kiln::plan::PlanModel first = cudaPlanOf(threeProducts);
    ASSERT_TRUE(tune(first, kiln::cuda::ProductTuning{cache, &convolutionLike, "stand-in GPU", false}, error)) << error;
    kiln::plan::PlanModel model = cudaPlanOf(threeProducts);
    ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, nullptr, "stand-in GPU", true}, error)) << error;
    for (kiln::plan::LayerRecord const* product : productsOf(model))
    {
        EXPECT_TRUE(product->backendChoice.empty()) << product->name;
    }
}

TEST(CudaProductTuning, ACacheMissUnderErrorOnCacheMissNamesTheLayer)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeProducts);
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    std::string error;
    EXPECT_FALSE(tune(model, kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", true}, error));
    EXPECT_NE(error.find("layer \"first\""), std::string::npos) << error;
    EXPECT_NE(error.find("kERROR_ON_TIMING_CACHE_MISS"), std::string::npos) << error;
    EXPECT_TRUE(timer.timed.empty());
}

TEST(CudaProductTuning, WhatCannotBeTimedKeepsTheHeuristicsFirstChoice)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    std::string error;
    // A timer that fails: the build goes on, each product with the heuristic's first choice and nothing cached.
    kiln::plan::PlanModel model = cudaPlanOf(threeProducts);
    StandInTimer failing;
    failing.fails = true;
    ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, &failing, "stand-in GPU", false}, error)) << error;
    for (kiln::plan::LayerRecord const* product : productsOf(model))
    {
        EXPECT_TRUE(product->backendChoice.empty()) << product->name;
    }
    EXPECT_EQ(cache.queryKeys(nullptr, 0), 0);

    // Without a GPU and without a cache entry: nothing timed, nothing chosen.
    kiln::plan::PlanModel untimed = cudaPlanOf(threeProducts);
    ASSERT_TRUE(tune(untimed, kiln::cuda::ProductTuning{cache, nullptr, "stand-in GPU", false}, error)) << error;
    for (kiln::plan::LayerRecord const* product : productsOf(untimed))
    {
        EXPECT_TRUE(product->backendChoice.empty()) << product->name;
    }

    // Products reading tensors past the network's (as a pass adds them) are not timed: the builder has no shape
    // for those.
    kiln::plan::PlanModel added = cudaPlanOf(threeProducts);
    StandInTimer timer;
    ASSERT_TRUE(kiln::cuda::tuneProducts(
        added, [&](int32_t t) { return kiln::plan::constantDims(added, t).value(); }, 0,
        kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", false}, error))
        << error;
    EXPECT_TRUE(timer.timed.empty());
}

} // namespace
