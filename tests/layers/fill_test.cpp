// IFillLayer end to end on the CPU backend: static and dynamic kLINSPACE (values worked out by hand), its values
// as a shape tensor, and the random operations (checked by range and moments: their numbers come from Kiln's
// generator, which TensorRT does not document).
#include "expect_close.h"
#include "round_trip.h"

#include <cmath>
#include <functional>
#include <numeric>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

ITensor* floatConstant(LayerHarness& h, Dims const& dims, std::vector<float> const& values)
{
    IConstantLayer* layer = h.network->addConstant(dims, kiln::test::floatWeights(values));
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    return layer != nullptr ? layer->getOutput(0) : nullptr;
}

TEST(FillLayer, StaticLinspaceDefaultsAndTypes)
{
    LayerHarness h;
    IFillLayer* real = h.network->addFill(Dims{1, {5}}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ASSERT_NE(real, nullptr) << h.logger.errors();
    EXPECT_EQ(real->getType(), LayerType::kFILL);
    EXPECT_EQ(real->getNbInputs(), 0);
    EXPECT_EQ(real->getAlpha(), 0.0);
    EXPECT_EQ(real->getBeta(), 1.0);
    EXPECT_EQ(real->getToType(), DataType::kFLOAT);
    EXPECT_EQ(real->getDimensions().d[0], 5);
    real->setAlpha(2.0);
    real->setBeta(0.5);
    h.output(real, "real");
    IFillLayer* ints = h.network->addFill(Dims{1, {4}}, FillOperation::kLINSPACE, DataType::kINT32);
    ASSERT_NE(ints, nullptr) << h.logger.errors();
    ints->setAlpha(-3.0);
    ints->setBeta(2.0);
    EXPECT_EQ(ints->getOutput(0)->getType(), DataType::kINT32);
    h.output(ints, "ints");
    IFillLayer* scalar = h.network->addFill(Dims{0, {}}, FillOperation::kLINSPACE, DataType::kHALF);
    ASSERT_NE(scalar, nullptr) << h.logger.errors();
    scalar->setAlpha(7.0);
    scalar->setToType(DataType::kFLOAT);
    h.output(scalar, "scalar");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> realOut(5);
    std::vector<int32_t> intsOut(4);
    float scalarOut = 0;
    ASSERT_TRUE(h.run({}, {{"real", realOut.data()}, {"ints", intsOut.data()}, {"scalar", &scalarOut}}));
    expectClose(realOut, {2, 2.5F, 3, 3.5F, 4}, 1e-5F); // alpha + beta * i
    EXPECT_EQ(intsOut, (std::vector<int32_t>{-3, -1, 1, 3}));
    EXPECT_EQ(scalarOut, 7.0F); // a 0-D linspace is alpha
}

TEST(FillLayer, IntegerLinspaceIsAShapeTensor)
{
    LayerHarness h;
    // Range(2, 4) as a fill: the values 2, 3 are known while shapes are inferred and reshape a 6-vector.
    IFillLayer* range = h.network->addFill(Dims{1, {2}}, FillOperation::kLINSPACE, DataType::kINT64);
    ASSERT_NE(range, nullptr) << h.logger.errors();
    range->setAlpha(2.0);
    EXPECT_TRUE(range->getOutput(0)->isShapeTensor());
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    IShuffleLayer* reshape = h.network->addShuffle(*x);
    ASSERT_NE(reshape, nullptr) << h.logger.errors();
    reshape->setInput(1, *range->getOutput(0));
    h.output(reshape, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 3}));
    std::vector<float> const input{1, 2, 3, 4, 5, 6};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, input, 1e-5F);
}

TEST(FillLayer, DynamicShapeAlphaAndDeltas)
{
    LayerHarness h;
    ITensor* like = h.network->addInput("like", DataType::kFLOAT, Dims{2, {-1, -1}});
    IShapeLayer* shape = h.network->addShape(*like);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    IFillLayer* fill = h.network->addFill(Dims{1, {1}}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ASSERT_NE(fill, nullptr) << h.logger.errors();
    fill->setInput(0, *shape->getOutput(0));
    fill->setInput(1, *floatConstant(h, Dims{0, {}}, {1.0F}));
    fill->setInput(2, *floatConstant(h, Dims{1, {2}}, {10.0F, 1.0F}));
    EXPECT_EQ(fill->getNbInputs(), 3);
    EXPECT_EQ(fill->getDimensions().nbDims, -1);
    EXPECT_EQ(fill->getAlpha(), -1.0);
    EXPECT_EQ(fill->getBeta(), -1.0);
    h.output(fill, "y");
    h.setProfile("like", Dims{2, {1, 1}}, Dims{2, {2, 3}}, Dims{2, {4, 4}});
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    ASSERT_TRUE(h.context->setInputShape("like", Dims{2, {2, 3}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 3}));
    std::vector<float> const likes(6, 0.0F);
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"like", likes.data()}}, {{"y", y.data()}}));
    expectClose(y, {1, 2, 3, 11, 12, 13}, 1e-5F); // 1 + 10 i + j
    // The static setters remove the inputs that overrode them, as in TensorRT.
    fill->setDimensions(Dims{1, {3}});
    fill->setAlpha(0.0);
    EXPECT_EQ(fill->getInput(0), nullptr);
    EXPECT_EQ(fill->getInput(1), nullptr);
    EXPECT_EQ(fill->getDimensions().d[0], 3);
}

//! Mean and standard deviation of the values.
std::pair<double, double> moments(std::vector<float> const& values)
{
    double const mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    double squares = 0.0;
    for (float v : values)
    {
        squares += (v - mean) * (v - mean);
    }
    return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

TEST(FillLayer, RandomUniformAndNormal)
{
    LayerHarness h;
    IFillLayer* uniform = h.network->addFill(Dims{1, {4000}}, FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    ASSERT_NE(uniform, nullptr) << h.logger.errors();
    uniform->setAlpha(-2.0);
    uniform->setBeta(3.0);
    h.output(uniform, "uniform");
    IFillLayer* normal = h.network->addFill(Dims{2, {50, 80}}, FillOperation::kRANDOM_NORMAL, DataType::kFLOAT);
    ASSERT_NE(normal, nullptr) << h.logger.errors();
    normal->setAlpha(5.0);
    normal->setBeta(2.0);
    h.output(normal, "normal");
    // Dynamic bounds: uniform in [10, 11].
    IFillLayer* bounded = h.network->addFill(Dims{1, {100}}, FillOperation::kRANDOM_UNIFORM, DataType::kHALF);
    ASSERT_NE(bounded, nullptr) << h.logger.errors();
    bounded->setInput(1, *floatConstant(h, Dims{0, {}}, {10.0F}));
    bounded->setInput(2, *floatConstant(h, Dims{0, {}}, {11.0F}));
    bounded->setOutputType(0, DataType::kFLOAT);
    h.output(bounded, "bounded");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> uniformOut(4000);
    std::vector<float> normalOut(4000);
    std::vector<float> boundedOut(100);
    std::map<std::string, void*> const outputs{
        {"uniform", uniformOut.data()}, {"normal", normalOut.data()}, {"bounded", boundedOut.data()}};
    ASSERT_TRUE(h.run({}, outputs));
    for (float v : uniformOut)
    {
        ASSERT_GE(v, -2.0F);
        ASSERT_LE(v, 3.0F);
    }
    for (float v : boundedOut)
    {
        ASSERT_GE(v, 10.0F);
        ASSERT_LE(v, 11.0F);
    }
    // Uniform on [-2, 3]: mean 0.5, deviation 5 / sqrt(12) = 1.443; over 4000 draws the mean's own deviation is
    // 0.023, so these bounds hold with a wide margin (and the generator is seeded, so they hold every run).
    auto const [uniformMean, uniformDeviation] = moments(uniformOut);
    EXPECT_NEAR(uniformMean, 0.5, 0.12);
    EXPECT_NEAR(uniformDeviation, 1.443, 0.08);
    auto const [normalMean, normalDeviation] = moments(normalOut);
    EXPECT_NEAR(normalMean, 5.0, 0.15);
    EXPECT_NEAR(normalDeviation, 2.0, 0.1);
    EXPECT_NE(uniformOut[0], uniformOut[1]);
    // A fixed seed: a second run gives the same numbers.
    std::vector<float> const first = uniformOut;
    ASSERT_TRUE(h.run({}, outputs));
    EXPECT_EQ(uniformOut, first);
}

//! Adds a fill named "bad", lets `configure` set it up, and expects the build to fail naming it and saying `message`.
void expectBuildError(std::function<void(LayerHarness&, IFillLayer&)> const& configure, char const* message,
    FillOperation op = FillOperation::kLINSPACE)
{
    LayerHarness h;
    IFillLayer* layer = h.network->addFill(Dims{1, {3}}, op, DataType::kFLOAT);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setName("bad");
    configure(h, *layer);
    h.output(layer, "y");
    h.expectBuildToFail("layer \"bad\"");
    EXPECT_TRUE(errorMentions(h, message)) << h.logger.errors();
}

TEST(FillLayer, BadParametersNameTheLayer)
{
    expectBuildError(
        [](LayerHarness& h, IFillLayer& layer) {
            layer.setInput(1, *floatConstant(h, Dims{0, {}}, {1}));
            layer.setInput(2, *floatConstant(h, Dims{1, {2}}, {1, 1}));
        },
        "the kLINSPACE fill beta (input 2) holds 2 deltas for an output of rank 1");
    expectBuildError(
        [](LayerHarness& h, IFillLayer& layer) {
            // Tensors first: adding a layer infers every layer's shapes, this bad fill's included.
            ITensor* alpha = floatConstant(h, Dims{1, {1}}, {1});
            ITensor* beta = floatConstant(h, Dims{1, {1}}, {1});
            layer.setInput(1, *alpha);
            layer.setInput(2, *beta);
        },
        "the kLINSPACE fill alpha (input 1) must be 0-D, not 1-D");
    expectBuildError(
        [](LayerHarness& h, IFillLayer& layer) {
            std::vector<int32_t> const one{1};
            IConstantLayer* alpha = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT32, one.data(), 1});
            layer.setInput(1, *alpha->getOutput(0));
            layer.setInput(2, *floatConstant(h, Dims{1, {1}}, {1}));
        },
        "the fill alpha (input 1) is INT32 but beta (input 2) is FLOAT; they must have one type");
    expectBuildError([](LayerHarness&, IFillLayer& layer) { layer.setBeta(-1.0); },
        "standard deviation beta (-1.000000) is negative", FillOperation::kRANDOM_NORMAL);
    expectBuildError([](LayerHarness&, IFillLayer& layer) { layer.setToType(DataType::kINT32); },
        "a kRANDOM_NORMAL fill cannot make INT32 output", FillOperation::kRANDOM_NORMAL);
    expectBuildError(
        [](LayerHarness& h, IFillLayer& layer) {
            // A shape-tensor input: its values must bound the profile (none is given here).
            ITensor* dims = h.network->addInput("dims", DataType::kINT32, Dims{1, {2}});
            layer.setInput(0, *dims);
        },
        "the shapes depend on the values of \"dims\": give them for every profile with "
        "IOptimizationProfile::setShapeValues");
}

TEST(FillLayer, AddFillRejectsBadArguments)
{
    LayerHarness h;
    EXPECT_EQ(h.network->addFill(Dims{1, {-1}}, FillOperation::kLINSPACE, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addFill: the dimensions entry 0 is -1")) << h.logger.errors();
    EXPECT_EQ(h.network->addFill(Dims{1, {2}}, FillOperation::kRANDOM_UNIFORM, DataType::kINT64), nullptr);
    EXPECT_TRUE(errorMentions(h, "a kRANDOM_UNIFORM fill cannot make INT64 output")) << h.logger.errors();
}

TEST(FillLayer, AlphaInputWithStaticBeta)
{
    // TensorRT wants both or neither; Kiln takes the static beta when only alpha is an input.
    LayerHarness h;
    IFillLayer* layer = h.network->addFill(Dims{1, {3}}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setInput(1, *floatConstant(h, Dims{0, {}}, {4.0F}));
    layer->setBeta(2.0);
    EXPECT_EQ(layer->getAlpha(), -1.0);
    EXPECT_EQ(layer->getBeta(), 2.0);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> y(3);
    ASSERT_TRUE(h.run({}, {{"y", y.data()}}));
    expectClose(y, {4, 6, 8}, 1e-5F);
}

TEST(FillLayer, StaticLinspaceOfRankTwoFailsWhenRun)
{
    // TensorRT fails the same way: a static beta is one delta, so an N-d kLINSPACE needs beta as input 2. (Shapes
    // are inferred when addFill returns, before the application can set that input, so the run reports it.)
    LayerHarness h;
    IFillLayer* layer = h.network->addFill(Dims{2, {2, 2}}, FillOperation::kLINSPACE, DataType::kFLOAT);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> y(4);
    ASSERT_TRUE(h.context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(
        errorMentions(h, "layer \"(Unnamed Layer* 0) [Fill]\": fill: a kLINSPACE fill of rank 2 needs beta as input 2"))
        << h.logger.errors();
}

TEST(FillLayer, UniformBoundsInTheWrongOrderFailWhenRun)
{
    // Checked when the layer runs, not when shapes are inferred: setAlpha(5) then setBeta(10) passes through the
    // bounds [5, 1], and shapes are inferred whenever a layer is added in between.
    LayerHarness h;
    IFillLayer* layer = h.network->addFill(Dims{1, {3}}, FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setAlpha(4.0);
    EXPECT_NE(h.network->addConstant(Dims{1, {1}}, kiln::test::floatWeights({1.0F})), nullptr) << h.logger.errors();
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> y(3);
    ASSERT_TRUE(h.context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "the minimum alpha (4.000000) exceeds the maximum beta (1.000000)"))
        << h.logger.errors();
}

} // namespace
