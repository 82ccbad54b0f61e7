// IGatherLayer end to end on the CPU backend: kDEFAULT, kELEMENT, kND and shape-value propagation.
#include "expect_close.h"
#include "round_trip.h"

#include <numeric>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

ITensor* int32Constant(LayerHarness& h, Dims dims, std::vector<int32_t> const& values)
{
    Weights const w{DataType::kINT32, values.data(), static_cast<int64_t>(values.size())};
    IConstantLayer* layer = h.network->addConstant(dims, w);
    return layer ? layer->getOutput(0) : nullptr;
}

TEST(GatherLayer, DefaultElementAndNd)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {3, 2}}); // rows (0,1), (2,3), (4,5)
    ITensor* rows = int32Constant(h, Dims{1, {3}}, {2, 0, -1});
    IGatherLayer* byRow = h.network->addGather(*x, *rows, 0);
    ASSERT_NE(byRow, nullptr) << h.logger.errors();
    EXPECT_EQ(byRow->getMode(), GatherMode::kDEFAULT);
    EXPECT_EQ(byRow->getNbElementWiseDims(), 0);
    ITensor* columns = int32Constant(h, Dims{2, {3, 1}}, {1, 0, 1});
    IGatherLayer* element = h.network->addGatherV2(*x, *columns, GatherMode::kELEMENT);
    ASSERT_NE(element, nullptr) << h.logger.errors();
    element->setGatherAxis(1);
    ITensor* points = int32Constant(h, Dims{2, {2, 2}}, {2, 1, 0, 0});
    IGatherLayer* nd = h.network->addGatherV2(*x, *points, GatherMode::kND);
    h.output(byRow, "rows");
    h.output(element, "element");
    h.output(nd, "nd");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("rows"), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(h.shapeOf("element"), (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(h.shapeOf("nd"), (std::vector<int64_t>{2}));
    std::vector<float> input(6);
    std::iota(input.begin(), input.end(), 0.0F);
    std::vector<float> r(6);
    std::vector<float> e(3);
    std::vector<float> n(2);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"rows", r.data()}, {"element", e.data()}, {"nd", n.data()}}));
    expectClose(r, {4, 5, 0, 1, 4, 5}, 1e-5F);
    expectClose(e, {1, 2, 5}, 1e-5F);
    expectClose(n, {5, 0}, 1e-5F);
}

TEST(GatherLayer, RuntimeDimensionsAndShapeValues)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {-1, 3, -1}});
    // Gathering dims (2, 0) of x's shape keeps the values known: a reshape target of (x.d2, x.d0).
    IShapeLayer* shape = h.network->addShape(*x);
    std::vector<int64_t> const picks{2, 0};
    IConstantLayer* pickLayer = h.network->addConstant(Dims{1, {2}}, Weights{DataType::kINT64, picks.data(), 2});
    IGatherLayer* picked = h.network->addGather(*shape->getOutput(0), *pickLayer->getOutput(0), 0);
    ASSERT_NE(picked, nullptr) << h.logger.errors();
    EXPECT_TRUE(picked->getOutput(0)->isShapeTensor());
    ITensor* flat = h.network->addInput("flat", DataType::kFLOAT, Dims{1, {-1}});
    IShuffleLayer* reshape = h.network->addShuffle(*flat);
    reshape->setInput(1, *picked->getOutput(0));
    // And a gather along the run-time last axis of x.
    IGatherLayer* along = h.network->addGather(*x, *int32Constant(h, Dims{0, {}}, {0}), 2);
    h.output(reshape, "reshaped");
    h.output(along, "along");
    h.setProfile("x", Dims{3, {1, 3, 1}}, Dims{3, {2, 3, 2}}, Dims{3, {4, 3, 4}});
    h.setProfile("flat", Dims{1, {1}}, Dims{1, {4}}, Dims{1, {16}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{3, {2, 3, 4}}));
    ASSERT_TRUE(h.context->setInputShape("flat", Dims{1, {8}}));
    EXPECT_EQ(h.shapeOf("reshaped"), (std::vector<int64_t>{4, 2}));
    EXPECT_EQ(h.shapeOf("along"), (std::vector<int64_t>{2, 3}));
}

TEST(GatherLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {3, 2}});
    ITensor* floatIndices = h.network->addInput("f", DataType::kFLOAT, Dims{1, {2}});
    EXPECT_EQ(h.network->addGather(*x, *floatIndices, 0), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "gather indices must be INT32 or INT64")) << h.logger.errors();
    ITensor* indices = int32Constant(h, Dims{1, {2}}, {0, 1});
    EXPECT_EQ(h.network->addGather(*x, *indices, 2), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "gather axis 2 is out of range")) << h.logger.errors();
    EXPECT_EQ(h.network->addGatherV2(*x, *indices, static_cast<GatherMode>(7)), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "gather mode 7 is out of range")) << h.logger.errors();
}

} // namespace
