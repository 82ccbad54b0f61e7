// IResizeLayer end to end on the CPU backend: output dimensions, scales and a shape-tensor output shape; every
// interpolation mode, coordinate transformation, nearest rounding and single-pixel selector. Expected values are
// worked out by hand in the comments.
#include "expect_close.h"
#include "round_trip.h"

#include <functional>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

IResizeLayer* resizeTo(LayerHarness& h, ITensor& input, Dims const& dims)
{
    IResizeLayer* layer = h.network->addResize(input);
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    if (layer != nullptr)
    {
        layer->setOutputDimensions(dims);
    }
    return layer;
}

TEST(ResizeLayer, DefaultsAreTensorRTsAndNearestUpsamples)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    IResizeLayer* layer = h.network->addResize(*x);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kRESIZE);
    EXPECT_EQ(layer->getResizeMode(), InterpolationMode::kNEAREST);
    EXPECT_EQ(layer->getCoordinateTransformation(), ResizeCoordinateTransformation::kASYMMETRIC);
    EXPECT_EQ(layer->getSelectorForSinglePixel(), ResizeSelector::kFORMULA);
    EXPECT_EQ(layer->getNearestRounding(), ResizeRoundMode::kFLOOR);
    EXPECT_FLOAT_EQ(layer->getCubicCoeff(), -0.75F);
    EXPECT_FALSE(layer->getExcludeOutside());
    EXPECT_EQ(layer->getScales(0, nullptr), -1);
    EXPECT_EQ(layer->getOutputDimensions().nbDims, -1);
    // Nothing set yet: the output keeps the input's shape.
    EXPECT_EQ(layer->getOutput(0)->getDimensions().nbDims, 4);
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[3], 2);
    layer->setOutputDimensions(Dims{4, {1, 1, 4, 4}});
    EXPECT_EQ(layer->getOutputDimensions().d[2], 4);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 1, 4, 4}));
    // kASYMMETRIC with scale 2 samples x / 2, floored: every input pixel becomes a 2x2 block.
    std::vector<float> const input{1, 2, 3, 4};
    std::vector<float> y(16);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 1e-5F);
}

TEST(ResizeLayer, LinearWithScalesAndAlignCorners)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {1, 4}});
    IResizeLayer* down = h.network->addResize(*x);
    ASSERT_NE(down, nullptr) << h.logger.errors();
    float const scales[] = {1.0F, 0.5F};
    down->setScales(scales, 2);
    down->setResizeMode(InterpolationMode::kLINEAR);
    down->setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
    float read[2] = {};
    EXPECT_EQ(down->getScales(2, read), 2);
    EXPECT_FLOAT_EQ(read[1], 0.5F);
    EXPECT_EQ(down->getOutputDimensions().nbDims, -1);
    h.output(down, "down");
    ITensor* z = h.network->addInput("z", DataType::kFLOAT, Dims{2, {1, 3}});
    IResizeLayer* corners = resizeTo(h, *z, Dims{2, {1, 5}});
    corners->setResizeMode(InterpolationMode::kLINEAR);
    corners->setCoordinateTransformation(ResizeCoordinateTransformation::kALIGN_CORNERS);
    h.output(corners, "corners");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("down"), (std::vector<int64_t>{1, 2}));
    std::vector<float> const xs{1, 2, 3, 4};
    std::vector<float> const zs{0, 10, 20};
    std::vector<float> downOut(2);
    std::vector<float> cornersOut(5);
    ASSERT_TRUE(
        h.run({{"x", xs.data()}, {"z", zs.data()}}, {{"down", downOut.data()}, {"corners", cornersOut.data()}}));
    // Half pixel at scale 0.5: output o samples (o + 0.5) / 0.5 - 0.5 = 2o + 0.5, i.e. 0.5 and 2.5.
    expectClose(downOut, {1.5F, 3.5F}, 1e-5F);
    // Align corners from 3 to 5: output o samples o * 2 / 4.
    expectClose(cornersOut, {0, 5, 10, 15, 20}, 1e-5F);
}

TEST(ResizeLayer, CubicCoefficientsAndExcludeOutside)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    IResizeLayer* cubic = resizeTo(h, *x, Dims{1, {8}});
    cubic->setResizeMode(InterpolationMode::kCUBIC);
    h.output(cubic, "cubic");
    IResizeLayer* excluding = resizeTo(h, *x, Dims{1, {8}});
    excluding->setResizeMode(InterpolationMode::kCUBIC);
    excluding->setExcludeOutside(true);
    h.output(excluding, "excluding");
    IResizeLayer* catmullRom = resizeTo(h, *x, Dims{1, {8}});
    catmullRom->setResizeMode(InterpolationMode::kCUBIC);
    catmullRom->setCubicCoeff(-0.5F);
    h.output(catmullRom, "catmullRom");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    // Input 0, 1, 4, 9; output o samples o / 2 (kASYMMETRIC). At a half-way point the four neighbours' weights
    // with A = -0.75 are -0.09375, 0.59375, 0.59375, -0.09375. Neighbours beyond the edges repeat the edge value,
    // or with exclude-outside are dropped and the other weights rescaled to sum to 1.
    std::vector<float> const input{0, 1, 4, 9};
    std::vector<float> cubicOut(8);
    std::vector<float> excludingOut(8);
    std::vector<float> catmullRomOut(8);
    ASSERT_TRUE(h.run({{"x", input.data()}},
        {{"cubic", cubicOut.data()}, {"excluding", excludingOut.data()}, {"catmullRom", catmullRomOut.data()}}));
    // o = 1 (x = 0.5): neighbours 0, 0, 1, 4 -> 0.59375 - 0.375; excluding the outside one: 0.21875 / 1.09375.
    // o = 3 (x = 1.5): 0.59375 + 2.375 - 0.84375. o = 5 (x = 2.5): neighbours 1, 4, 9, 9.
    // o = 7 (x = 3.5): neighbours 4, 9, 9, 9; excluding: (-0.375 + 5.34375) / 0.5.
    expectClose(cubicOut, {0, 0.21875F, 1, 2.125F, 4, 6.78125F, 9, 9.46875F}, 1e-5F);
    EXPECT_NEAR(excludingOut[1], 0.2F, 1e-5F);
    EXPECT_NEAR(excludingOut[3], 2.125F, 1e-5F);
    EXPECT_NEAR(excludingOut[7], 9.9375F, 1e-5F);
    // A = -0.5 (Catmull-Rom): half-way weights -0.0625, 0.5625, 0.5625, -0.0625, which reproduce x^2 inside:
    // o = 3 gives 1.5^2 = 2.25; o = 5 (neighbours 1, 4, 9, 9) gives -0.0625 + 2.25 + 5.0625 - 0.5625.
    EXPECT_NEAR(catmullRomOut[3], 2.25F, 1e-5F);
    EXPECT_NEAR(catmullRomOut[5], 6.6875F, 1e-5F);
}

TEST(ResizeLayer, NearestRoundingModesAndSinglePixelSelector)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kINT32, Dims{1, {2}});
    // From 2 to 4 (kASYMMETRIC): output o samples o / 2 = 0, 0.5, 1, 1.5 (clamped to the last input).
    ResizeRoundMode const modes[]
        = {ResizeRoundMode::kHALF_UP, ResizeRoundMode::kHALF_DOWN, ResizeRoundMode::kFLOOR, ResizeRoundMode::kCEIL};
    char const* const names[] = {"halfUp", "halfDown", "floor", "ceil"};
    for (int i = 0; i < 4; ++i)
    {
        IResizeLayer* layer = resizeTo(h, *x, Dims{1, {4}});
        layer->setNearestRounding(modes[i]);
        h.output(layer, names[i]);
    }
    // From 4 to 1 with kHALF_PIXEL: the formula samples 0.5 * 4 - 0.5 = 1.5 (floored: element 1); kUPPER picks 0.
    ITensor* w = h.network->addInput("w", DataType::kINT32, Dims{1, {4}});
    IResizeLayer* formula = resizeTo(h, *w, Dims{1, {1}});
    formula->setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
    h.output(formula, "formula");
    IResizeLayer* upper = resizeTo(h, *w, Dims{1, {1}});
    upper->setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
    upper->setSelectorForSinglePixel(ResizeSelector::kUPPER);
    h.output(upper, "upper");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<int32_t> const xs{10, 20};
    std::vector<int32_t> const ws{10, 20, 30, 40};
    std::vector<std::vector<int32_t>> out(4, std::vector<int32_t>(4));
    int32_t formulaOut = 0;
    int32_t upperOut = 0;
    ASSERT_TRUE(h.run({{"x", xs.data()}, {"w", ws.data()}},
        {{"halfUp", out[0].data()}, {"halfDown", out[1].data()}, {"floor", out[2].data()}, {"ceil", out[3].data()},
            {"formula", &formulaOut}, {"upper", &upperOut}}));
    EXPECT_EQ(out[0], (std::vector<int32_t>{10, 20, 20, 20})); // 0, 1, 1, 2 -> 1
    EXPECT_EQ(out[1], (std::vector<int32_t>{10, 10, 20, 20})); // ceil(x - 0.5): 0, 0, 1, 1
    EXPECT_EQ(out[2], (std::vector<int32_t>{10, 10, 20, 20}));
    EXPECT_EQ(out[3], (std::vector<int32_t>{10, 20, 20, 20}));
    EXPECT_EQ(formulaOut, 20);
    EXPECT_EQ(upperOut, 10);
}

TEST(ResizeLayer, OutputShapeFromShapeTensorAndScalesOfRuntimeExtents)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 2}});
    ITensor* like = h.network->addInput("like", DataType::kFLOAT, Dims{2, {-1, -1}});
    IShapeLayer* shape = h.network->addShape(*like);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    IResizeLayer* dynamic = h.network->addResize(*x);
    ASSERT_NE(dynamic, nullptr) << h.logger.errors();
    float const ignored[] = {3.0F, 3.0F};
    dynamic->setScales(ignored, 2);
    dynamic->setInput(1, *shape->getOutput(0)); // the output-shape input overrides the scales
    EXPECT_EQ(dynamic->getNbInputs(), 2);
    EXPECT_EQ(dynamic->getScales(0, nullptr), -1);
    h.output(dynamic, "dynamic");
    // Scale 1.5 of a run-time extent: floor(n * 3 / 2).
    ITensor* v = h.network->addInput("v", DataType::kFLOAT, Dims{1, {-1}});
    IResizeLayer* scaled = h.network->addResize(*v);
    ASSERT_NE(scaled, nullptr) << h.logger.errors();
    float const oneAndHalf = 1.5F;
    scaled->setScales(&oneAndHalf, 1);
    h.output(scaled, "scaled");
    h.setProfile("x", Dims{2, {1, 2}}, Dims{2, {1, 2}}, Dims{2, {4, 2}});
    h.setProfile("like", Dims{2, {1, 1}}, Dims{2, {2, 4}}, Dims{2, {8, 8}});
    h.setProfile("v", Dims{1, {1}}, Dims{1, {3}}, Dims{1, {8}});
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    ASSERT_TRUE(h.context->setInputShape("x", Dims{2, {1, 2}}));
    ASSERT_TRUE(h.context->setInputShape("like", Dims{2, {2, 4}}));
    ASSERT_TRUE(h.context->setInputShape("v", Dims{1, {3}}));
    EXPECT_EQ(h.shapeOf("dynamic"), (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(h.shapeOf("scaled"), (std::vector<int64_t>{4}));
    std::vector<float> const xs{1, 2};
    std::vector<float> const likes(8, 0.0F);
    std::vector<float> const vs{1, 2, 3};
    std::vector<float> dynamicOut(8);
    std::vector<float> scaledOut(4);
    ASSERT_TRUE(h.run({{"x", xs.data()}, {"like", likes.data()}, {"v", vs.data()}},
        {{"dynamic", dynamicOut.data()}, {"scaled", scaledOut.data()}}));
    // Both axes doubled (nearest, floor): rows 0, 0 and columns 0, 0, 1, 1.
    expectClose(dynamicOut, {1, 1, 2, 2, 1, 1, 2, 2}, 1e-5F);
    // The given scale drives the mapping: o / 1.5 = 0, 0.67, 1.33, 2, floored.
    expectClose(scaledOut, {1, 1, 2, 3}, 1e-5F);
    // Setting output dimensions removes the output-shape input again, as in TensorRT.
    dynamic->setOutputDimensions(Dims{2, {2, 2}});
    EXPECT_EQ(dynamic->getInput(1), nullptr);
}

//! Builds a network whose resize layer "bad" `configure` sets up, and expects the build to fail naming the layer
//! and saying `message`.
void expectBuildError(std::function<void(LayerHarness&, IResizeLayer&)> const& configure, char const* message,
    DataType type = DataType::kFLOAT)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", type, Dims{2, {2, 3}});
    IResizeLayer* layer = h.network->addResize(*x);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setName("bad");
    configure(h, *layer);
    h.output(layer, "y");
    h.expectBuildToFail("layer \"bad\"");
    EXPECT_TRUE(errorMentions(h, message)) << h.logger.errors();
}

TEST(ResizeLayer, BadParametersNameTheLayer)
{
    expectBuildError(
        [](LayerHarness&, IResizeLayer& layer) {
            float const scales[] = {1, 2, 3};
            layer.setScales(scales, 3);
        },
        "3 resize scales for an input of rank 2");
    expectBuildError(
        [](LayerHarness&, IResizeLayer& layer) {
            float const scales[] = {1, 0};
            layer.setScales(scales, 2);
        },
        "scales must be positive and finite");
    expectBuildError(
        [](LayerHarness&, IResizeLayer& layer) {
            layer.setOutputDimensions(Dims{1, {4}});
        },
        "the resize output dimensions have rank 1 but the input has rank 2");
    expectBuildError(
        [](LayerHarness&, IResizeLayer& layer) {
            layer.setOutputDimensions(Dims{2, {2, -3}});
        },
        "resize output extent 1 is negative (-3)");
    expectBuildError([](LayerHarness&, IResizeLayer& layer) { layer.setResizeMode(InterpolationMode::kLINEAR); },
        "kLINEAR and kCUBIC resize FLOAT, HALF or BF16 input, not INT32", DataType::kINT32);
    expectBuildError(
        [](LayerHarness&, IResizeLayer& layer) { layer.setNearestRounding(static_cast<ResizeRoundMode>(9)); },
        "out of range");
    expectBuildError(
        [](LayerHarness& h, IResizeLayer& layer) {
            ITensor* floats = h.network->addInput("shape", DataType::kFLOAT, Dims{1, {2}});
            layer.setInput(1, *floats);
        },
        "the resize output shape (input 1) must be a 1-D INT32 or INT64 tensor, not a 1-D FLOAT tensor");
    expectBuildError(
        [](LayerHarness& h, IResizeLayer& layer) {
            // A shape-tensor input: its values must bound the profile (none is given here).
            ITensor* ints = h.network->addInput("shape", DataType::kINT32, Dims{1, {2}});
            layer.setInput(1, *ints);
        },
        "the shapes depend on the values of \"shape\": give them for every profile with "
        "IOptimizationProfile::setShapeValues");
}

TEST(ResizeLayer, SetScalesRejectsNullAndEmpty)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {2}});
    IResizeLayer* layer = h.network->addResize(*x);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setScales(nullptr, 1);
    EXPECT_TRUE(errorMentions(h, "IResizeLayer::setScales")) << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "scales is null")) << h.logger.errors();
    EXPECT_EQ(layer->getScales(0, nullptr), -1);
}

} // namespace
