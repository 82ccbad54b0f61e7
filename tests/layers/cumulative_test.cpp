// ICumulativeLayer end to end on the CPU backend: inclusive, exclusive, reverse and both, along either axis, with
// FLOAT and INT32 data and INT32/INT64 (also negative) axes; the plan round trip; errors that name the layer.
// Expected values are worked out by hand in the comments.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

//! A 0-D constant; `value` must outlive the build, as TensorRT's weights must.
template <typename T>
ITensor* scalar(LayerHarness& h, DataType type, T const& value)
{
    IConstantLayer* layer = h.network->addConstant(Dims{0, {}}, Weights{type, &value, 1});
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    return layer->getOutput(0);
}

TEST(CumulativeLayer, EveryModeAlongTheLastAxis)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    int32_t const one = 1;
    ITensor* axis = scalar(h, DataType::kINT32, one);
    ICumulativeLayer* inclusive = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false);
    ASSERT_NE(inclusive, nullptr) << h.logger.errors();
    EXPECT_EQ(inclusive->getType(), LayerType::kCUMULATIVE);
    EXPECT_EQ(inclusive->getOperation(), CumulativeOperation::kSUM);
    EXPECT_FALSE(inclusive->getExclusive());
    EXPECT_FALSE(inclusive->getReverse());
    h.output(inclusive, "inclusive");
    ICumulativeLayer* exclusive = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, true, false);
    ASSERT_NE(exclusive, nullptr) << h.logger.errors();
    EXPECT_TRUE(exclusive->getExclusive());
    h.output(exclusive, "exclusive");
    ICumulativeLayer* reverse = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false);
    ASSERT_NE(reverse, nullptr) << h.logger.errors();
    reverse->setReverse(true);
    EXPECT_TRUE(reverse->getReverse());
    h.output(reverse, "reverse");
    ICumulativeLayer* both = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, true);
    ASSERT_NE(both, nullptr) << h.logger.errors();
    both->setExclusive(true);
    h.output(both, "both");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("inclusive"), (std::vector<int64_t>{2, 3}));
    std::vector<float> const input{1, 2, 3, 4, 5, 6};
    std::vector<float> a(6);
    std::vector<float> b(6);
    std::vector<float> c(6);
    std::vector<float> d(6);
    ASSERT_TRUE(h.run({{"x", input.data()}},
        {{"inclusive", a.data()}, {"exclusive", b.data()}, {"reverse", c.data()}, {"both", d.data()}}));
    expectClose(a, {1, 3, 6, 4, 9, 15}, 1e-5F);  // running sums of each row
    expectClose(b, {0, 1, 3, 0, 4, 9}, 1e-5F);   // the same, shifted by one
    expectClose(c, {6, 5, 3, 15, 11, 6}, 1e-5F); // sums from the end of each row
    expectClose(d, {5, 3, 0, 11, 6, 0}, 1e-5F);  // from the end, leaving each element out
}

TEST(CumulativeLayer, IntegerDataAlongANegativeInt64Axis)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kINT32, Dims{2, {3, 2}});
    int64_t const minusTwo = -2; // axis 0 of a 2-D input
    ITensor* axis = scalar(h, DataType::kINT64, minusTwo);
    ICumulativeLayer* layer = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<int32_t> const input{1, 10, 2, 20, 3, 30};
    std::vector<int32_t> y(6);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<int32_t>{1, 10, 3, 30, 6, 60})); // column sums, top to bottom
}

TEST(CumulativeLayer, BadArgumentsNameTheLayer)
{
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
        int32_t const one = 1;
        ITensor* axis = scalar(h, DataType::kINT32, one);
        EXPECT_EQ(h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false), nullptr);
        EXPECT_TRUE(errorMentions(h, "the cumulative axis 1 is out of range for an input of rank 1"))
            << h.logger.errors();
    }
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
        ITensor* axis = h.network->addInput("axis", DataType::kINT32, Dims{0, {}});
        EXPECT_EQ(h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false), nullptr);
        EXPECT_TRUE(errorMentions(h, "the cumulative axis")) << h.logger.errors();
        EXPECT_TRUE(errorMentions(h, "Cumulative")) << h.logger.errors();
    }
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kBOOL, Dims{1, {4}});
        int32_t const zero = 0;
        ITensor* axis = scalar(h, DataType::kINT32, zero);
        EXPECT_EQ(h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false), nullptr);
        EXPECT_TRUE(errorMentions(h, "the cumulative input must be FLOAT, HALF, BF16, INT32 or INT64, not BOOL"))
            << h.logger.errors();
    }
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
        int32_t const zero = 0;
        ITensor* axis = scalar(h, DataType::kINT32, zero);
        ICumulativeLayer* layer = h.network->addCumulative(*x, *axis, CumulativeOperation::kSUM, false, false);
        ASSERT_NE(layer, nullptr) << h.logger.errors();
        EXPECT_FALSE(layer->setOperation(static_cast<CumulativeOperation>(7)));
        EXPECT_EQ(layer->getOperation(), CumulativeOperation::kSUM);
    }
}

} // namespace
