// Matrix multiplies by constant weights, as the ONNX parser imports MatMul and Gemm (a constant, reshaped): the
// context hands the weights to the fast kernel when it is made, which runs a linear layer as a 1x1 convolution (its
// weights laid out once) or reads them from the plan, and stops running the constant and reshape layers that made
// them; against the reference kernels, at each shape of a profile, and at every thread count.
#include "fast_path_comparison.h"
#include "layer_helpers.h"

namespace kiln::test
{
namespace
{

using Op = MatrixOperation;

struct LinearCase
{
    char const* name;
    Shape x;
    Op opX;
    Shape weights;
    Op opWeights;
};

void PrintTo(LinearCase const& c, std::ostream* os)
{
    *os << c.name;
}

int64_t innerExtent(LinearCase const& c)
{
    return c.opX == Op::kTRANSPOSE ? c.x[c.x.size() - 2] : c.x.back();
}

//! x times the case's weights: a constant of their values, reshaped to their shape. `values` must outlive it.
NetworkMaker linearOf(LinearCase const& c, std::vector<float> const& values, Shape const& x = {})
{
    return [c, &values, x](INetworkDefinition& network) {
        ITensor* input = network.addInput("x", DataType::kFLOAT, dimsOf(x.empty() ? c.x : x));
        ITensor& weights = reshaped(
            network, constantOf(network, {volume(c.weights)}, values, "weights"), c.weights, "weights reshape");
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*input, c.opX, weights, c.opWeights);
        ASSERT_NE(product, nullptr) << "the case's shapes do not multiply";
        product->setName("product");
        markOutput(network, *product->getOutput(0));
    };
}

class FastLinear : public testing::TestWithParam<LinearCase>
{
};

TEST_P(FastLinear, MatchesTheReferenceKernel)
{
    LinearCase const& c = GetParam();
    std::vector<float> const values = randomValues(static_cast<size_t>(volume(c.weights)), 2);
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        linearOf(c, values), {{{"x", randomTensor(c.x, 1)}}}, reductionTolerance(innerExtent(c)));
    // The reshape of the constant weights is folded into a constant when the plan is built (constant_folding.h).
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"folded: weights reshape", false}, {"product", true}}));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastLinear,
    testing::Values(LinearCase{"TwoDimensional", {5, 24}, Op::kNONE, {24, 16}, Op::kNONE},
        LinearCase{"TransposedWeights", {5, 24}, Op::kNONE, {16, 24}, Op::kTRANSPOSE},
        LinearCase{"BertRows", {2, 7, 32}, Op::kNONE, {1, 32, 48}, Op::kNONE},
        LinearCase{"ManyRows", {3, 100, 64}, Op::kNONE, {1, 64, 200}, Op::kNONE},
        LinearCase{"OneRow", {1, 300}, Op::kNONE, {300, 500}, Op::kNONE},
        LinearCase{"FourDimensional", {2, 3, 5, 8}, Op::kNONE, {1, 1, 6, 8}, Op::kTRANSPOSE},
        // Not one matrix of weights over rows that lie one after another: the tiled product, reading the plan's.
        LinearCase{"TransposedInput", {2, 24, 5}, Op::kTRANSPOSE, {1, 24, 16}, Op::kNONE},
        LinearCase{"WeightsPerBatch", {2, 5, 24}, Op::kNONE, {2, 24, 16}, Op::kNONE},
        LinearCase{"VectorInput", {24}, Op::kVECTOR, {24, 16}, Op::kNONE}),
    [](testing::TestParamInfo<LinearCase> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastLinearConstants, WeightsThatOtherLayersReadAreStillMade)
{
    // The reshaped weights also go through a ReLU, to a second output.
    LinearCase const c{"Shared", {5, 24}, Op::kNONE, {24, 16}, Op::kNONE};
    std::vector<float> const values = randomValues(24 * 16, 3);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dimsOf(c.x));
        ITensor& weights = reshaped(network, constantOf(network, {24 * 16}, values, "weights"), c.weights, "reshape");
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*x, c.opX, weights, c.opWeights);
        product->setName("product");
        markOutput(network, *product->getOutput(0));
        ITensor& relu = activated(network, weights, ActivationType::kRELU, "relu");
        relu.setName("relu of the weights");
        network.markOutput(relu);
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor(c.x, 4)}}}, reductionTolerance(24));
    EXPECT_EQ(layersNamed(layers, {"product"}), (std::map<std::string, bool>{{"product", true}}));
}

TEST(FastLinearShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    LinearCase const c{"Dynamic", {-1, 7, 32}, Op::kNONE, {1, 32, 48}, Op::kNONE};
    std::vector<float> const values = randomValues(32 * 48, 5);
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("x", OptProfileSelector::kMIN, Dims3{1, 7, 32});
        shapes->setDimensions("x", OptProfileSelector::kOPT, Dims3{2, 7, 32});
        shapes->setDimensions("x", OptProfileSelector::kMAX, Dims3{8, 7, 32});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{{{"x", randomTensor({2, 7, 32}, 6)}}, {{"x", randomTensor({8, 7, 32}, 7)}},
        {{"x", randomTensor({1, 7, 32}, 8)}}, {{"x", randomTensor({2, 7, 32}, 9)}}};
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(linearOf(c, values), runs, reductionTolerance(32), profile);
    EXPECT_EQ(layersNamed(layers, {"product"}), (std::map<std::string, bool>{{"product", true}}));
}

TEST(FastLinearThreads, EveryThreadCountGivesTheSameBits)
{
    for (LinearCase const& c : {LinearCase{"Row", {1, 768}, Op::kNONE, {768, 768}, Op::kNONE},
             LinearCase{"Few", {2, 4000}, Op::kNONE, {3, 4000}, Op::kTRANSPOSE},
             LinearCase{"Rows", {3, 130, 200}, Op::kNONE, {1, 200, 300}, Op::kNONE}})
    {
        std::vector<float> const values = randomValues(static_cast<size_t>(volume(c.weights)), 10);
        std::vector<uint8_t> const plan = buildCpuPlan(linearOf(c, values), CpuKernels::kFAST);
        std::vector<Tensors> const runs{{{"x", randomTensor(c.x, 11)}}};
        std::vector<Tensors> const one = runCpuPlan(plan, runs, 1);
        for (int32_t threads : {2, 3, 0})
        {
            std::vector<Tensors> const more = runCpuPlan(plan, runs, threads);
            ASSERT_EQ(more.size(), 1U);
            EXPECT_EQ(more[0].at("output").bytes, one.at(0).at("output").bytes) << c.name << ", " << threads;
        }
    }
}

} // namespace
} // namespace kiln::test
