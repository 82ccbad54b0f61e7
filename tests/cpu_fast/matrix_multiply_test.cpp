// The fast path's matrix multiply against the reference kernel: the shapes of the layer tests, odd sizes, transposes,
// vectors, batches that broadcast, products larger than a tile; weights from constants as the ONNX parser imports
// MatMul and Gemm, with the bias and activation the CPU build fuses into the product; dynamic shapes; thread counts.
#include "fast_path_comparison.h"
#include "layer_helpers.h"

namespace kiln::test
{
namespace
{

using Op = MatrixOperation;

struct ProductCase
{
    char const* name;
    Shape a;
    Op opA;
    Shape b;
    Op opB;
};

//! The inner extent of a case's product: what each output element sums over.
int64_t innerExtent(Shape const& a, Op opA)
{
    return opA == Op::kTRANSPOSE ? a[a.size() - 2] : a.back();
}

NetworkMaker productOf(ProductCase const& c, DataType type = DataType::kFLOAT)
{
    return [c, type](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", type, dimsOf(c.a));
        ITensor* b = network.addInput("b", type, dimsOf(c.b));
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*a, c.opA, *b, c.opB);
        product->setName("product");
        product->getOutput(0)->setName("output");
        network.markOutput(*product->getOutput(0));
    };
}

//! Names a failing case by its name rather than its bytes.
void PrintTo(ProductCase const& c, std::ostream* os)
{
    *os << c.name;
}

class FastMatrixMultiply : public testing::TestWithParam<ProductCase>
{
};

TEST_P(FastMatrixMultiply, MatchesTheReferenceKernel)
{
    ProductCase const& c = GetParam();
    std::map<std::string, bool> const layers = expectFastMatchesReference(productOf(c),
        {{{"a", randomTensor(c.a, 1)}, {"b", randomTensor(c.b, 2)}}}, reductionTolerance(innerExtent(c.a, c.opA)));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"product", true}}));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastMatrixMultiply,
    testing::Values(ProductCase{"Plain", {5, 7}, Op::kNONE, {7, 3}, Op::kNONE},
        ProductCase{"OddSizes", {13, 37}, Op::kNONE, {37, 29}, Op::kNONE},
        ProductCase{"FirstTransposed", {7, 5}, Op::kTRANSPOSE, {7, 3}, Op::kNONE},
        ProductCase{"SecondTransposed", {5, 7}, Op::kNONE, {3, 7}, Op::kTRANSPOSE},
        ProductCase{"BothTransposed", {7, 5}, Op::kTRANSPOSE, {3, 7}, Op::kTRANSPOSE},
        ProductCase{"Batched", {4, 6, 8}, Op::kNONE, {4, 8, 5}, Op::kNONE},
        ProductCase{"SecondSharedOverTheBatch", {4, 6, 8}, Op::kNONE, {1, 8, 5}, Op::kNONE},
        ProductCase{"FirstSharedSecondTransposed", {1, 6, 8}, Op::kNONE, {3, 5, 8}, Op::kTRANSPOSE},
        ProductCase{"BatchesBroadcastBothWays", {2, 1, 5, 7}, Op::kNONE, {1, 3, 7, 4}, Op::kNONE},
        ProductCase{"FiveDimensional", {2, 1, 3, 4, 6}, Op::kTRANSPOSE, {1, 2, 3, 4, 5}, Op::kNONE},
        ProductCase{"VectorTimesMatrices", {1, 8}, Op::kVECTOR, {3, 8, 4}, Op::kNONE},
        ProductCase{"MatricesTimesVectors", {2, 5, 8}, Op::kNONE, {2, 8}, Op::kVECTOR},
        ProductCase{"TransposedMatricesTimesVectors", {2, 8, 5}, Op::kTRANSPOSE, {1, 8}, Op::kVECTOR},
        ProductCase{"DotProducts", {4, 8}, Op::kVECTOR, {4, 8}, Op::kVECTOR},
        ProductCase{"TilesWithTailsBothWays", {150, 97}, Op::kNONE, {97, 600}, Op::kNONE},
        ProductCase{"TransposedTilesWithTails", {2, 97, 130}, Op::kTRANSPOSE, {2, 300, 97}, Op::kTRANSPOSE},
        ProductCase{"OneRowManyColumns", {1, 500}, Op::kNONE, {500, 700}, Op::kNONE},
        ProductCase{"LongInnerSum", {3, 5000}, Op::kNONE, {5000, 2}, Op::kNONE}),
    [](testing::TestParamInfo<ProductCase> const& testInfo) { return std::string(testInfo.param.name); });

//! FP16 values in [-1, 1).
HostTensor halfTensor(Shape const& shape, uint32_t seed)
{
    return fromFloats(shape, randomTensor(shape, seed).floats(), DataType::kHALF);
}

void computeInHalf(IBuilder& /*builder*/, IBuilderConfig& config)
{
    config.setFlag(BuilderFlag::kFP16);
}

TEST(FastMatrixMultiplyTypes, HalfTensorsRunOnTheReference)
{
    // The product computes in FP32, but the fast path reads only tensors stored in FP32.
    ProductCase const c{"Half", {5, 7}, Op::kNONE, {7, 3}, Op::kNONE};
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        productOf(c, DataType::kHALF), {{{"a", halfTensor(c.a, 1)}, {"b", halfTensor(c.b, 2)}}}, 0.0);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"product", false}}));
}

TEST(FastMatrixMultiplyTypes, AProductInHalfPrecisionRunsOnTheReference)
{
    ProductCase const c{"Half", {5, 7}, Op::kNONE, {7, 3}, Op::kNONE};
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        productOf(c), {{{"a", randomTensor(c.a, 1)}, {"b", randomTensor(c.b, 2)}}}, 0.0, computeInHalf);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"product", false}}));
}

//! A linear layer as the ONNX parser imports MatMul then Add from a BERT export: x [2, 7, 32] times constant weights
//! [32, 48] reshaped to [1, 32, 48], plus a constant bias [48] reshaped to [1, 1, 48], then `activation`.
struct BertLinear
{
    static constexpr int64_t kIn = 32;
    static constexpr int64_t kOut = 48;
    Shape input{2, 7, kIn};
    std::vector<float> weights = randomValues(kIn * kOut, 11);
    std::vector<float> bias = randomValues(kOut, 12);

    NetworkMaker maker(ActivationType activation) const
    {
        return [this, activation](INetworkDefinition& network) {
            ITensor* x = network.addInput("x", DataType::kFLOAT, dimsOf(input));
            ITensor& w = reshaped(
                network, constantOf(network, {kIn, kOut}, weights, "weights"), {1, kIn, kOut}, "weights reshape");
            IMatrixMultiplyLayer* product = network.addMatrixMultiply(*x, Op::kNONE, w, Op::kNONE);
            product->setName("fc");
            ITensor& b = reshaped(network, constantOf(network, {kOut}, bias, "bias"), {1, 1, kOut}, "bias reshape");
            ITensor& sum = sumOf(network, *product->getOutput(0), b, "add");
            markOutput(network, activated(network, sum, activation, "activation"));
        };
    }

    std::map<std::string, bool> run(ActivationType activation) const
    {
        return expectFastMatchesReference(
            maker(activation), {{{"x", randomTensor(input, 13)}}}, reductionTolerance(kIn + 1));
    }
};

TEST(FastMatrixMultiplyFusion, BertLinearBiasAndGeluBecomeOneLayer)
{
    BertLinear const linear;
    std::map<std::string, bool> const layers = linear.run(ActivationType::kGELU_ERF);
    // The reshapes of the weights and of the bias are folded into constants when the plan is built; the bias's is
    // read by nothing else once fused: it goes.
    EXPECT_EQ(
        layers, (std::map<std::string, bool>{{"folded: weights reshape", false}, {"fc + add + activation", true}}));
    EXPECT_EQ(linear.run(ActivationType::kGELU_TANH).count("fc + add + activation"), 1U);
    EXPECT_EQ(linear.run(ActivationType::kRELU).count("fc + add + activation"), 1U);
}

TEST(FastMatrixMultiplyFusion, ActivationsOneDnnLacksRunAfterTheProduct)
{
    EXPECT_EQ(layersNamed(BertLinear{}.run(ActivationType::kSOFTSIGN), {"fc + add", "activation"}),
        (std::map<std::string, bool>{{"fc + add", true}, {"activation", false}}));
}

TEST(FastMatrixMultiplyFusion, GemmWithTransposedWeightsBiasAndRelu)
{
    // ONNX's Gemm with transB = 1 (PyTorch's Linear): x [5, 24] times weights [16, 24] transposed, plus C [1, 16].
    std::vector<float> const weights = randomValues(16 * 24, 21);
    std::vector<float> const bias = randomValues(16, 22);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims2{5, 24});
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(
            *x, Op::kNONE, constantOf(network, {16, 24}, weights, "weights"), Op::kTRANSPOSE);
        product->setName("gemm");
        ITensor& sum = sumOf(network, *product->getOutput(0), constantOf(network, {1, 16}, bias, "c"), "add");
        markOutput(network, activated(network, sum, ActivationType::kRELU, "relu"));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({5, 24}, 23)}}}, reductionTolerance(25));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"weights", false}, {"gemm + add + relu", true}}));
}

TEST(FastMatrixMultiplyFusion, ABiasAlongRowsIsNoEpilogue)
{
    // [M, 1] broadcasts down the columns: an addition the product's epilogue does not make.
    std::vector<float> const bias = randomValues(5, 31);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims2{5, 7});
        ITensor* b = network.addInput("b", DataType::kFLOAT, Dims2{7, 3});
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*a, Op::kNONE, *b, Op::kNONE);
        product->setName("product");
        markOutput(network, sumOf(network, *product->getOutput(0), constantOf(network, {5, 1}, bias, "bias"), "add"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"a", randomTensor({5, 7}, 32)}, {"b", randomTensor({7, 3}, 33)}}}, reductionTolerance(7));
    EXPECT_EQ(layersNamed(layers, {"product", "product + add"}), (std::map<std::string, bool>{{"product", true}}));
}

TEST(FastMatrixMultiplyShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    // Rows and inner extent change between runs.
    std::vector<float> const bias = randomValues(9, 41);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims2{-1, -1});
        ITensor* b = network.addInput("b", DataType::kFLOAT, Dims2{-1, 9});
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*a, Op::kNONE, *b, Op::kNONE);
        product->setName("product");
        ITensor& sum = sumOf(network, *product->getOutput(0), constantOf(network, {1, 9}, bias, "bias"), "add");
        markOutput(network, activated(network, sum, ActivationType::kTANH, "tanh"));
    };
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("a", OptProfileSelector::kMIN, Dims2{1, 1});
        shapes->setDimensions("a", OptProfileSelector::kOPT, Dims2{8, 12});
        shapes->setDimensions("a", OptProfileSelector::kMAX, Dims2{200, 40});
        shapes->setDimensions("b", OptProfileSelector::kMIN, Dims2{1, 9});
        shapes->setDimensions("b", OptProfileSelector::kOPT, Dims2{12, 9});
        shapes->setDimensions("b", OptProfileSelector::kMAX, Dims2{40, 9});
        config.addOptimizationProfile(shapes);
    };
    auto run = [](int64_t rows, int64_t inner, uint32_t seed) {
        return Tensors{{"a", randomTensor({rows, inner}, seed)}, {"b", randomTensor({inner, 9}, seed + 1)}};
    };
    std::vector<Tensors> const runs{run(8, 12, 1), run(200, 40, 3), run(1, 1, 5), run(8, 12, 9)};
    std::map<std::string, bool> const layers = expectFastMatchesReference(maker, runs, reductionTolerance(41), profile);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"product + add + tanh", true}}));
}

TEST(FastMatrixMultiplyShapes, AnEmptyInnerSumLeavesTheEpilogueAlone)
{
    // Operands sliced to no columns and no rows inside the network: the product is 0, plus the bias, through tanh.
    std::vector<float> const bias = randomValues(9, 42);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims2{3, 4});
        ITensor* b = network.addInput("b", DataType::kFLOAT, Dims2{4, 9});
        ISliceLayer* noColumns = network.addSlice(*a, Dims2{0, 0}, Dims2{3, 0}, Dims2{1, 1});
        ISliceLayer* noRows = network.addSlice(*b, Dims2{0, 0}, Dims2{0, 9}, Dims2{1, 1});
        IMatrixMultiplyLayer* product
            = network.addMatrixMultiply(*noColumns->getOutput(0), Op::kNONE, *noRows->getOutput(0), Op::kNONE);
        product->setName("product");
        ITensor& sum = sumOf(network, *product->getOutput(0), constantOf(network, {1, 9}, bias, "bias"), "add");
        markOutput(network, activated(network, sum, ActivationType::kTANH, "tanh"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"a", randomTensor({3, 4}, 43)}, {"b", randomTensor({4, 9}, 44)}}}, reductionTolerance(1));
    EXPECT_EQ(
        layersNamed(layers, {"product + add + tanh"}), (std::map<std::string, bool>{{"product + add + tanh", true}}));
}

TEST(FastMatrixMultiplyThreads, EveryThreadCountGivesTheSameBits)
{
    // Small outputs with long inner sums are where oneDNN's own threading would split the sums.
    for (ProductCase const& c : {ProductCase{"Row", {1, 768}, Op::kNONE, {768, 768}, Op::kNONE},
             ProductCase{"Few", {2, 4000}, Op::kNONE, {3, 4000}, Op::kTRANSPOSE},
             ProductCase{"Batched", {3, 130, 200}, Op::kNONE, {1, 200, 300}, Op::kNONE}})
    {
        std::vector<uint8_t> const plan = buildCpuPlan(productOf(c), CpuKernels::kFAST);
        std::vector<Tensors> const runs{{{"a", randomTensor(c.a, 1)}, {"b", randomTensor(c.b, 2)}}};
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
