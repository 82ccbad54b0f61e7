// ITopKLayer end to end on the CPU backend: values and indices outputs, any k.
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectNear;
using kiln::test::LayerHarness;

TEST(TopKLayer, MaxAndMinWithIndices)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 4}});
    ITopKLayer* top = h.network->addTopK(*x, TopKOperation::kMAX, 2, 2U);
    ASSERT_NE(top, nullptr) << h.logger.errors();
    EXPECT_EQ(top->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(top->getOutput(1)->getType(), DataType::kINT32);
    ITopKLayer* bottom = h.network->addTopK(*x, TopKOperation::kMIN, 1, 1U, DataType::kINT64);
    ASSERT_NE(bottom, nullptr) << h.logger.errors();
    EXPECT_EQ(bottom->getOutput(1)->getType(), DataType::kINT64);
    h.output(top, "topValues", 0);
    h.output(top, "topIndices", 1);
    h.output(bottom, "minValues", 0);
    h.output(bottom, "minIndices", 1);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input{3, 9, 1, 9, -2, 0, 5, 4};
    std::vector<float> topValues(4);
    std::vector<int32_t> topIndices(4);
    std::vector<float> minValues(4);
    std::vector<int64_t> minIndices(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"topValues", topValues.data()}, {"topIndices", topIndices.data()},
        {"minValues", minValues.data()}, {"minIndices", minIndices.data()}}));
    expectNear(topValues, {9, 9, 5, 4});
    EXPECT_EQ(topIndices, (std::vector<int32_t>{1, 3, 2, 3})); // ties: lower index first
    expectNear(minValues, {-2, 0, 1, 4});
    EXPECT_EQ(minIndices, (std::vector<int64_t>{1, 1, 0, 1}));
}

TEST(TopKLayer, LargeKAndRuntimeDimensions)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 5000}});
    ITopKLayer* layer = h.network->addTopK(*x, TopKOperation::kMAX, 4000, 2U); // beyond TensorRT's 3840 cap
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    h.output(layer, "values", 0);
    h.output(layer, "indices", 1);
    h.setProfile("x", Dims{2, {1, 5000}}, Dims{2, {1, 5000}}, Dims{2, {3, 5000}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{2, {2, 5000}}));
    EXPECT_EQ(h.shapeOf("values"), (std::vector<int64_t>{2, 4000}));
    EXPECT_EQ(h.shapeOf("indices"), (std::vector<int64_t>{2, 4000}));
    std::vector<float> input(10000);
    for (size_t i = 0; i < input.size(); ++i)
    {
        input[i] = static_cast<float>(i % 5000);
    }
    std::vector<float> values(8000);
    std::vector<int32_t> indices(8000);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"values", values.data()}, {"indices", indices.data()}}));
    EXPECT_EQ(values[0], 4999.0F);
    EXPECT_EQ(values[3999], 1000.0F);
    EXPECT_EQ(indices[4000], 4999);
    EXPECT_EQ(indices[7999], 1000);
}

TEST(TopKLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 4}});
    EXPECT_EQ(h.network->addTopK(*x, TopKOperation::kMAX, 0, 2U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "k (0) must be positive")) << h.logger.errors();
    EXPECT_EQ(h.network->addTopK(*x, TopKOperation::kMAX, 1, 3U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "must name exactly one axis")) << h.logger.errors();
    EXPECT_EQ(h.network->addTopK(*x, TopKOperation::kMAX, 5, 2U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "exceeds the extent 4")) << h.logger.errors();
    EXPECT_EQ(h.network->addTopK(*x, TopKOperation::kMAX, 1, 2U, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "indices type must be INT32 or INT64")) << h.logger.errors();
}

} // namespace
