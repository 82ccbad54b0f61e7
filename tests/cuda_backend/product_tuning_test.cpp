// The builder's choice of cuBLASLt algorithms without a GPU, through a stand-in timer: the rank it times fastest lands
// in the plan, identical products share one timing, the timing cache answers a later build, and a product that cannot
// be timed, or one reading a tensor a pass added, keeps the heuristic's first choice. Weights that time faster
// transposed are stored so; on a GPU, such a plan computes what the CPU reference does.
#include "backend/cuda/passes/product_tuning.h"
#include "backend/timing_cache.h"
#include "backend_comparison.h"
#include "network/layers/constant.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <set>
#include <stdexcept>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::AlgorithmChoice;

//! Answers every product with rank `rank` in 0.5 ms, and one whose second operand is shaped `fasterSecond` with rank
//! `fasterRank` in 0.25 ms, counting the products it is asked to time; throws where `fails`. A plan built on a GPU may
//! hold weights the GPU timed faster transposed: answering by shape, the stand-in decides alone which way round
//! weights end up.
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
        if (input1 == fasterSecond)
        {
            return Result{AlgorithmChoice::gemm(fasterRank), 0.25F};
        }
        return Result{
            answer.source == AlgorithmChoice::Source::kHEURISTIC ? AlgorithmChoice::gemm(rank) : answer, 0.5F};
    }
    int32_t rank{5};
    kiln::Shape fasterSecond;
    int32_t fasterRank{2};
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
    timer.fasterSecond = {8, 4};
    timer.fasterRank = 5;
    std::string error;
    ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
    // "first" and "same" multiply the same shapes: one timing serves both. "other" alone reads its weights, which are
    // timed as they are and transposed; they are faster as the network holds them, and stay so.
    ASSERT_EQ(timer.timed.size(), 3U);
    EXPECT_EQ(timer.timed[0].first, (kiln::Shape{2, 16}));
    EXPECT_EQ(timer.timed[0].second, (kiln::Shape{16, 8}));
    std::set<kiln::Shape> const otherLayouts{timer.timed[1].second, timer.timed[2].second};
    EXPECT_EQ(otherLayouts, (std::set<kiln::Shape>{{8, 4}, {4, 8}}));
    for (kiln::plan::LayerRecord const* product : productsOf(model))
    {
        EXPECT_EQ(AlgorithmChoice::decode(product->backendChoice), AlgorithmChoice::gemm(5)) << product->name;
        auto const* params = kiln::plan::paramsOf<kiln::network::MatrixMultiplyParams>(*product);
        EXPECT_EQ(params->op1, MatrixOperation::kNONE) << product->name;
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

//! The constant layer writing tensor `t` of `model`.
kiln::network::ConstantParams const& constantWriting(kiln::plan::PlanModel const& model, int32_t t)
{
    int64_t const producer = kiln::plan::producersOf(model).at(t);
    auto const* constant = producer >= 0 ? kiln::plan::paramsOf<kiln::network::ConstantParams>(model.layers[producer])
                                         : nullptr;
    if (constant == nullptr)
    {
        throw std::logic_error("no constant writes tensor " + std::to_string(t));
    }
    return *constant;
}

//! `values` of a rows x columns matrix, transposed.
std::vector<float> transposed(std::vector<float> const& values, size_t rows, size_t columns)
{
    std::vector<float> result(values.size());
    for (size_t r = 0; r < rows; ++r)
    {
        for (size_t c = 0; c < columns; ++c)
        {
            result[c * rows + r] = values[r * columns + c];
        }
    }
    return result;
}

TEST(CudaProductTuning, WeightsThatTimeFasterTransposedAreStoredTransposed)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    timer.fasterSecond = {4, 8};
    std::string error;
    for (bool const fromCache : {false, true})
    {
        std::string const build = fromCache ? "from the cache" : "timed";
        kiln::plan::PlanModel model = cudaPlanOf(threeProducts);
        ASSERT_TRUE(tune(
            model, kiln::cuda::ProductTuning{cache, fromCache ? nullptr : &timer, "stand-in GPU", fromCache}, error))
            << error;
        for (kiln::plan::LayerRecord const* product : productsOf(model))
        {
            auto const* params = kiln::plan::paramsOf<kiln::network::MatrixMultiplyParams>(*product);
            kiln::network::ConstantParams const& weights = constantWriting(model, product->inputs[1]);
            if (product->name == "other")
            {
                // [8, 4] stored as [4, 8], read through a transpose, with the rank timed so.
                EXPECT_EQ(params->op1, MatrixOperation::kTRANSPOSE) << build;
                EXPECT_EQ(kiln::plan::constantDims(model, product->inputs[1]), (std::vector<int64_t>{4, 8})) << build;
                EXPECT_EQ(weights.dimensions.nbDims, 2) << build;
                EXPECT_EQ(weights.dimensions.d[0], 4) << build;
                EXPECT_EQ(weights.dimensions.d[1], 8) << build;
                EXPECT_EQ(weights.weights.toFloat(), transposed(kOtherWeights, 8, 4)) << build;
                EXPECT_EQ(AlgorithmChoice::decode(product->backendChoice), AlgorithmChoice::gemm(2)) << build;
            }
            else
            {
                // Weights two products read stay as they are.
                EXPECT_EQ(params->op1, MatrixOperation::kNONE) << product->name << ", " << build;
                EXPECT_EQ(weights.weights.toFloat(), kWeights) << product->name << ", " << build;
                EXPECT_EQ(AlgorithmChoice::decode(product->backendChoice), AlgorithmChoice::gemm(5))
                    << product->name << ", " << build;
            }
        }
    }
}

//! x [B, 2, K] times constant weights shaped `weightDims` ([B, K, N] holding 128 values), as "product".
NetworkMaker productOfWeightsShaped(Dims weightDims)
{
    return [weightDims](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {weightDims.d[0], 2, weightDims.d[1]}});
        ITensor* w = network.addConstant(weightDims, Weights{DataType::kFLOAT, kWeights.data(), 16 * 8})->getOutput(0);
        IMatrixMultiplyLayer* product
            = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
        product->setName("product");
        product->getOutput(0)->setName("y");
        network.markOutput(*product->getOutput(0));
    };
}

TEST(CudaProductTuning, WeightsWithLeadingAxesOfOneAreTransposedInTheirLastTwo)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    timer.fasterSecond = {1, 8, 16};
    std::string error;
    // [1, 16, 8], as an ONNX MatMul's weights reach a product, becomes [1, 8, 16].
    kiln::plan::PlanModel model = cudaPlanOf(productOfWeightsShaped(Dims{3, {1, 16, 8}}));
    ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
    ASSERT_EQ(productsOf(model).size(), 1U);
    kiln::plan::LayerRecord const& product = *productsOf(model)[0];
    EXPECT_EQ(kiln::plan::paramsOf<kiln::network::MatrixMultiplyParams>(product)->op1, MatrixOperation::kTRANSPOSE);
    EXPECT_EQ(kiln::plan::constantDims(model, product.inputs[1]), (std::vector<int64_t>{1, 8, 16}));
    EXPECT_EQ(constantWriting(model, product.inputs[1]).weights.toFloat(), transposed(kWeights, 16, 8));

    // Two matrices, [2, 8, 8]: a batch of weights is not timed transposed and stays.
    StandInTimer batchTimer;
    batchTimer.fasterSecond = {2, 8, 8};
    kiln::plan::PlanModel batch = cudaPlanOf(productOfWeightsShaped(Dims{3, {2, 8, 8}}));
    ASSERT_TRUE(tune(batch, kiln::cuda::ProductTuning{cache, &batchTimer, "stand-in GPU", false}, error)) << error;
    ASSERT_EQ(productsOf(batch).size(), 1U);
    kiln::plan::LayerRecord const& batchProduct = *productsOf(batch)[0];
    EXPECT_EQ(batchTimer.timed.size(), 1U);
    EXPECT_EQ(kiln::plan::paramsOf<kiln::network::MatrixMultiplyParams>(batchProduct)->op1, MatrixOperation::kNONE);
    EXPECT_EQ(constantWriting(batch, batchProduct.inputs[1]).weights.toFloat(), kWeights);
}

//! x [64, 300] times constant weights [300, 129], plus a bias row, through a ReLU: a product the CUDA builder fuses.
void fullyConnected(INetworkDefinition& network)
{
    static std::vector<float> const weights = spread(300 * 129, -0.25F, 0.25F);
    static std::vector<float> const bias = spread(129, -0.5F, 0.5F);
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {64, 300}});
    ITensor* w
        = network.addConstant(Dims{2, {300, 129}}, Weights{DataType::kFLOAT, weights.data(), 300 * 129})->getOutput(0);
    ITensor* b = network.addConstant(Dims{2, {1, 129}}, Weights{DataType::kFLOAT, bias.data(), 129})->getOutput(0);
    IMatrixMultiplyLayer* product = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
    product->setName("fc");
    ITensor& sum = add(network, *product->getOutput(0), *b, "add");
    ITensor& y = relu(network, sum, "relu");
    y.setName("y");
    network.markOutput(y);
}

TEST(CudaProductTuning, APlanWithTransposedWeightsAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats({64, 300}, spread(64 * 300, -0.25F, 0.25F))}};
    for (bool const fp16 : {false, true})
    {
        std::string const precision = fp16 ? "FP16" : "FP32";
        kiln::plan::PlanModel model = cudaPlanOf(fullyConnected, fp16);
        ASSERT_EQ(productsOf(model).size(), 1U) << precision;
        // Stored transposed however the GPU timed them: the stand-in times them faster so.
        kiln::backend::TimingCache cache("stand-in GPU");
        StandInTimer timer;
        timer.fasterSecond = {129, 300};
        std::string error;
        ASSERT_TRUE(tune(model, kiln::cuda::ProductTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
        kiln::plan::LayerRecord const& product = *productsOf(model)[0];
        ASSERT_EQ(kiln::plan::paramsOf<kiln::network::MatrixMultiplyParams>(product)->op1, MatrixOperation::kTRANSPOSE)
            << precision;
        auto const expected = runOn(kiln::Backend::kCPU, fullyConnected, inputs, fp16);
        auto const outputs = runPlan(kiln::Backend::kCUDA, kiln::plan::writePlan(model), inputs);
        ASSERT_EQ(outputs.count("y"), 1U) << precision;
        Tolerance const tolerance = fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4};
        expectSameOutput(outputs.at("y"), expected.at("y"), tolerance, precision);
    }
}

} // namespace
