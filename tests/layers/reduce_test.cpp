// IReduceLayer end to end on the CPU backend.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

TEST(ReduceLayer, SumKeepAndMaxDrop)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    IReduceLayer* sum = h.network->addReduce(*x, ReduceOperation::kSUM, 2U, true);
    ASSERT_NE(sum, nullptr) << h.logger.errors();
    EXPECT_EQ(sum->getReduceAxes(), 2U);
    EXPECT_TRUE(sum->getKeepDimensions());
    IReduceLayer* max = h.network->addReduce(*x, ReduceOperation::kMAX, 1U, false);
    IReduceLayer* avg = h.network->addReduce(*x, ReduceOperation::kAVG, 3U, false);
    h.output(sum, "sum");
    h.output(max, "max");
    h.output(avg, "avg");
    EXPECT_EQ(sum->getOutput(0)->getDimensions().nbDims, 2);
    EXPECT_EQ(max->getOutput(0)->getDimensions().nbDims, 1);
    EXPECT_EQ(avg->getOutput(0)->getDimensions().nbDims, 0);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input{1, 5, 3, -4, 2, 8};
    std::vector<float> sumOut(2);
    std::vector<float> maxOut(3);
    std::vector<float> avgOut(1);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"sum", sumOut.data()}, {"max", maxOut.data()}, {"avg", avgOut.data()}}));
    expectClose(sumOut, {9, 6}, 1e-5F);
    expectClose(maxOut, {1, 5, 8}, 1e-5F);
    expectClose(avgOut, {15.0F / 6.0F}, 1e-5F);
}

TEST(ReduceLayer, RuntimeDimensions)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {-1, 4, -1}});
    IReduceLayer* layer = h.network->addReduce(*x, ReduceOperation::kPROD, 2U, true);
    h.output(layer, "y");
    h.setProfile("x", Dims{3, {1, 4, 1}}, Dims{3, {2, 4, 3}}, Dims{3, {5, 4, 7}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{3, {3, 4, 6}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3, 1, 6}));
}

TEST(ReduceLayer, AxisBeyondRankAndBoolInputFail)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    EXPECT_EQ(h.network->addReduce(*x, ReduceOperation::kSUM, 4U, false), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "beyond the input's rank 2")) << h.logger.errors();
    ITensor* b = h.network->addInput("b", DataType::kBOOL, Dims{1, {2}});
    EXPECT_EQ(h.network->addReduce(*b, ReduceOperation::kSUM, 1U, false), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "does not take BOOL input")) << h.logger.errors();
}

TEST(ReduceLayer, IntegerSum)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kINT32, Dims{2, {2, 2}});
    h.output(h.network->addReduce(*x, ReduceOperation::kSUM, 1U, false), "y");
    ASSERT_TRUE(h.build());
    std::vector<int32_t> const input{7, -2, 10, 4};
    std::vector<int32_t> y(2);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<int32_t>{17, 2}));
}

} // namespace
