// IGridSampleLayer end to end on the CPU backend: identity and shifted grids, points outside the input under every
// sample mode, nearest rounding (half to even) with and without align corners, bicubic, FP16 precision, the modes
// kept by the plan, the setters' defaults and refusals, and argument errors. Expected values are worked out by hand
// (and agree with ONNX's reference GridSample).
#include "expect_close.h"
#include "network/layers/grid_sample.h"
#include "plan/plan_format.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

//! The input [[1, 2, 3], [4, 5, 6]] as [1, 1, 2, 3].
std::vector<float> const kTwoByThree{1, 2, 3, 4, 5, 6};

struct GridSampleCase
{
    InterpolationMode interpolation{InterpolationMode::kLINEAR};
    bool alignCorners{false};
    SampleMode sampleMode{SampleMode::kFILL};
};

//! Samples `input` (of dims `inputDims`) at `grid` ((x, y) pairs, dims [1, 1, points, 2]) with `modes`, through a
//! built and reloaded plan.
std::vector<float> sample(
    Dims const& inputDims, std::vector<float> const& input, std::vector<float> const& grid, GridSampleCase const& modes)
{
    LayerHarness h;
    int64_t const points = static_cast<int64_t>(grid.size() / 2);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, inputDims);
    ITensor* g = h.network->addInput("grid", DataType::kFLOAT, Dims{4, {1, 1, points, 2}});
    IGridSampleLayer* layer = h.network->addGridSample(*x, *g);
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    if (layer == nullptr)
    {
        return {};
    }
    layer->setInterpolationMode(modes.interpolation);
    layer->setAlignCorners(modes.alignCorners);
    EXPECT_TRUE(layer->setSampleMode(modes.sampleMode));
    h.output(layer, "y");
    if (!h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{inputDims.d[0], inputDims.d[1], 1, points}));
    std::vector<float> y(static_cast<size_t>(inputDims.d[1] * points));
    h.run({{"x", input.data()}, {"grid", grid.data()}}, {{"y", y.data()}});
    return y;
}

TEST(GridSampleLayer, IdentityGridReproducesTheInput)
{
    Dims const dims{4, {1, 1, 2, 3}};
    // Pixel centres: with align corners at -1, 0, 1 (x) and -1, 1 (y); without, at (2i + 1) / extent - 1.
    std::vector<float> const aligned{-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1};
    std::vector<float> const centred{
        -2.0F / 3, -0.5F, 0, -0.5F, 2.0F / 3, -0.5F, -2.0F / 3, 0.5F, 0, 0.5F, 2.0F / 3, 0.5F};
    for (InterpolationMode mode : {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC})
    {
        SCOPED_TRACE(static_cast<int32_t>(mode));
        expectClose(sample(dims, kTwoByThree, aligned, {mode, true, SampleMode::kFILL}), kTwoByThree, 1e-5F);
        expectClose(sample(dims, kTwoByThree, centred, {mode, false, SampleMode::kFILL}), kTwoByThree, 1e-5F);
    }
}

TEST(GridSampleLayer, ShiftedGridBlendsNeighbours)
{
    // With align corners, x = -0.5 is column 0.5 and y = 0 is row 0.5: the means of two and of four pixels.
    std::vector<float> const grid{-0.5F, -1, 0.5F, 0};
    expectClose(sample(Dims{4, {1, 1, 2, 3}}, kTwoByThree, grid, {InterpolationMode::kLINEAR, true, SampleMode::kFILL}),
        {1.5F, 4.0F}, 1e-5F);
}

TEST(GridSampleLayer, RunsAtFp16Precision)
{
    // With kFP16 the layer reads its input and grid in half; these values and results are exact in it.
    LayerHarness h;
    h.config->setFlag(BuilderFlag::kFP16);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 2, 3}});
    ITensor* g = h.network->addInput("grid", DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    IGridSampleLayer* layer = h.network->addGridSample(*x, *g);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setAlignCorners(true);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const grid{-0.5F, -1, 0.5F, 0};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", kTwoByThree.data()}, {"grid", grid.data()}}, {{"y", y.data()}}));
    expectClose(y, {1.5F, 4.0F}, 0.0F);
}

TEST(GridSampleLayer, PointsOutsideTheInputUnderEverySampleMode)
{
    // Input [1, 2, 3, 4] as one row; without align corners x maps to column 2x + 1.5 and the inside is
    // [-0.5, 3.5]. Columns -1.5, -0.25, 4.5, 7.5 and -4.5.
    Dims const dims{4, {1, 1, 1, 4}};
    std::vector<float> const row{1, 2, 3, 4};
    std::vector<float> const grid{-1.5F, 0, -0.875F, 0, 1.5F, 0, 3.0F, 0, -3.0F, 0};
    // kFILL reads zeros outside: only column -0.25 keeps 0.75 of pixel 0.
    expectClose(
        sample(dims, row, grid, {InterpolationMode::kLINEAR, false, SampleMode::kFILL}), {0, 0.75F, 0, 0, 0}, 1e-5F);
    // kCLAMP moves points outside [-0.5, 3.5] to the edge pixels; column -0.25 blends pixel 0 with itself.
    expectClose(
        sample(dims, row, grid, {InterpolationMode::kLINEAR, false, SampleMode::kCLAMP}), {1, 1, 4, 4, 1}, 1e-5F);
    // kREFLECT mirrors at -0.5 and 3.5: -1.5 -> 0.5, 4.5 -> 2.5, 7.5 -> -0.5 (two folds), -4.5 -> 3.5.
    expectClose(sample(dims, row, grid, {InterpolationMode::kLINEAR, false, SampleMode::kREFLECT}),
        {1.5F, 1, 3.5F, 1, 4}, 1e-5F);
}

TEST(GridSampleLayer, NearestRoundsHalfToEven)
{
    Dims const dims{4, {1, 1, 2, 3}};
    std::vector<float> const grid{-0.5F, -1, 0.5F, -1, 0, 0, 0.2F, 0.5F, 1, 1};
    // Align corners: columns 0.5 -> 0, 1.5 -> 2, 1, 1.2 -> 1, 2 and rows 0, 0, 0.5 -> 0, 0.75 -> 1, 1.
    expectClose(sample(dims, kTwoByThree, grid, {InterpolationMode::kNEAREST, true, SampleMode::kFILL}),
        {1, 3, 2, 5, 6}, 1e-5F);
    // Without: columns 0.25, 1.75, 1, 1.3, 2.5 -> 2 and rows -0.5 -> 0, 0, 0.5 -> 0, 1, 1.5 -> 2 (outside: zero).
    expectClose(sample(dims, kTwoByThree, grid, {InterpolationMode::kNEAREST, false, SampleMode::kFILL}),
        {1, 3, 2, 5, 0}, 1e-5F);
}

TEST(GridSampleLayer, BicubicUsesCoefficientMinusThreeQuarters)
{
    // Columns 0.5 and 1.5 of [1, 2, 4, 8]: weights -0.09375, 0.59375, 0.59375, -0.09375 (A = -0.75). Column 0.5's
    // first neighbour, -1, is 0 under kFILL and pixel 0 under kCLAMP and kREFLECT.
    Dims const dims{4, {1, 1, 1, 4}};
    std::vector<float> const row{1, 2, 4, 8};
    std::vector<float> const grid{-0.5F, 0, 0, 0};
    expectClose(
        sample(dims, row, grid, {InterpolationMode::kCUBIC, false, SampleMode::kFILL}), {1.40625F, 2.71875F}, 1e-5F);
    expectClose(
        sample(dims, row, grid, {InterpolationMode::kCUBIC, false, SampleMode::kCLAMP}), {1.3125F, 2.71875F}, 1e-5F);
    expectClose(
        sample(dims, row, grid, {InterpolationMode::kCUBIC, false, SampleMode::kREFLECT}), {1.3125F, 2.71875F}, 1e-5F);
}

TEST(GridSampleLayer, ChannelsAndBatchesShareTheirGrid)
{
    // Two batches of two channels; batch n samples with its own grid, the same for each of its channels.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {2, 2, 1, 2}});
    ITensor* g = h.network->addInput("grid", DataType::kFLOAT, Dims{4, {2, 1, 1, 2}});
    IGridSampleLayer* layer = h.network->addGridSample(*x, *g);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setAlignCorners(true);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 2, 1, 1}));
    std::vector<float> const input{0, 10, 20, 30, 40, 50, 60, 70};
    // Batch 0 samples column 0.25, batch 1 column 1.
    std::vector<float> const grid{-0.5F, 0, 1, 0};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", input.data()}, {"grid", grid.data()}}, {{"y", y.data()}}));
    expectClose(y, {2.5F, 22.5F, 50, 70}, 1e-5F);
}

TEST(GridSampleLayer, PlanKeepsTheModes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 2, 3}});
    ITensor* g = h.network->addInput("grid", DataType::kFLOAT, Dims{4, {1, 2, 2, 2}});
    IGridSampleLayer* layer = h.network->addGridSample(*x, *g);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setInterpolationMode(InterpolationMode::kCUBIC);
    layer->setAlignCorners(true);
    ASSERT_TRUE(layer->setSampleMode(SampleMode::kREFLECT));
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 1, 2, 2}));
    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    int32_t found = 0;
    for (kiln::plan::LayerRecord const& record : model.layers)
    {
        if (record.type == LayerType::kGRID_SAMPLE)
        {
            auto const& params = static_cast<kiln::network::GridSampleParams const&>(*record.params);
            EXPECT_EQ(params.interpolationMode, InterpolationMode::kCUBIC);
            EXPECT_TRUE(params.alignCorners);
            EXPECT_EQ(params.sampleMode, SampleMode::kREFLECT);
            ++found;
        }
    }
    EXPECT_EQ(found, 1);
}

TEST(GridSampleLayer, DefaultsAndRefusedModes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kHALF, Dims{4, {1, 3, 4, 5}});
    ITensor* g = h.network->addInput("grid", DataType::kHALF, Dims{4, {1, 6, 7, 2}});
    IGridSampleLayer* layer = h.network->addGridSample(*x, *g);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kGRID_SAMPLE);
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kLINEAR);
    EXPECT_FALSE(layer->getAlignCorners());
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    Dims const out = layer->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(out.d, out.d + out.nbDims), (std::vector<int64_t>{1, 3, 6, 7}));
    EXPECT_FALSE(layer->setSampleMode(SampleMode::kWRAP));
    EXPECT_FALSE(layer->setSampleMode(SampleMode::kSTRICT_BOUNDS));
    EXPECT_FALSE(layer->setSampleMode(static_cast<SampleMode>(9)));
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kFILL);
    EXPECT_TRUE(layer->setSampleMode(SampleMode::kCLAMP));
    EXPECT_EQ(layer->getSampleMode(), SampleMode::kCLAMP);
    layer->setInterpolationMode(InterpolationMode::kNEAREST);
    layer->setInterpolationMode(static_cast<InterpolationMode>(7));
    EXPECT_EQ(layer->getInterpolationMode(), InterpolationMode::kNEAREST);
    EXPECT_TRUE(errorMentions(h,
        "IGridSampleLayer::setInterpolationMode: layer \"(Unnamed Layer* 0) [GridSample]\": "
        "7 is not an InterpolationMode"))
        << h.logger.errors();
}

TEST(GridSampleLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 4, 5}});
    ITensor* grid = h.network->addInput("grid", DataType::kFLOAT, Dims{4, {2, 6, 7, 2}});
    ITensor* ints = h.network->addInput("ints", DataType::kINT32, Dims{4, {2, 3, 4, 5}});
    EXPECT_EQ(h.network->addGridSample(*ints, *grid), nullptr);
    EXPECT_TRUE(errorMentions(h, "the grid sample input (input 0) must be FLOAT, HALF or BF16, not INT32"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addGridSample: layer \"(Unnamed Layer*")) << h.logger.errors();
    ITensor* rank3 = h.network->addInput("rank3", DataType::kFLOAT, Dims{3, {3, 4, 5}});
    EXPECT_EQ(h.network->addGridSample(*rank3, *grid), nullptr);
    EXPECT_TRUE(errorMentions(h, "the grid sample input (input 0) must have rank 4 [N, C, H, W], not 3"))
        << h.logger.errors();
    ITensor* halfGrid = h.network->addInput("halfGrid", DataType::kHALF, Dims{4, {2, 6, 7, 2}});
    EXPECT_EQ(h.network->addGridSample(*x, *halfGrid), nullptr);
    EXPECT_TRUE(errorMentions(h, "the grid sample grid (input 1) must have the input's type FLOAT, not HALF"))
        << h.logger.errors();
    ITensor* threeCoordinates = h.network->addInput("xyz", DataType::kFLOAT, Dims{4, {2, 6, 7, 3}});
    EXPECT_EQ(h.network->addGridSample(*x, *threeCoordinates), nullptr);
    EXPECT_TRUE(errorMentions(h, "the grid sample grid's last dim must hold the 2 coordinates (x, y), not 3"))
        << h.logger.errors();
    ITensor* otherBatch = h.network->addInput("otherBatch", DataType::kFLOAT, Dims{4, {3, 6, 7, 2}});
    EXPECT_EQ(h.network->addGridSample(*x, *otherBatch), nullptr);
    EXPECT_TRUE(errorMentions(h, "the grid sample grid's batch 3 differs from the input's 2")) << h.logger.errors();
}

} // namespace
