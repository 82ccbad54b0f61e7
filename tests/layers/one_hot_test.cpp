// IOneHotLayer end to end on the CPU backend: every axis position, negative and out-of-range indices, a depth
// computed from a run-time shape, and argument errors. Expected values are worked out by hand.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

template <typename T>
ITensor* constant(LayerHarness& h, DataType type, Dims const& dims, std::vector<T> const& values)
{
    IConstantLayer* layer
        = h.network->addConstant(dims, Weights{type, values.data(), static_cast<int64_t>(values.size())});
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    return layer->getOutput(0);
}

TEST(OneHotLayer, EveryAxisWithNegativeAndOutOfRangeIndices)
{
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{2, {2, 2}});
    std::vector<float> const offOn{-1.0F, 7.0F};
    ITensor* values = constant(h, DataType::kFLOAT, Dims{1, {2}}, offOn);
    std::vector<int32_t> const three{3};
    ITensor* depth = constant(h, DataType::kINT32, Dims{0, {}}, three);
    IOneHotLayer* last = h.network->addOneHot(*indices, *values, *depth, -1);
    ASSERT_NE(last, nullptr) << h.logger.errors();
    EXPECT_EQ(last->getType(), LayerType::kONE_HOT);
    EXPECT_EQ(last->getAxis(), -1);
    EXPECT_EQ(last->getOutput(0)->getType(), DataType::kFLOAT);
    h.output(last, "last");
    IOneHotLayer* first = h.network->addOneHot(*indices, *values, *depth, 0);
    ASSERT_NE(first, nullptr) << h.logger.errors();
    h.output(first, "first");
    IOneHotLayer* middle = h.network->addOneHot(*indices, *values, *depth, 0);
    ASSERT_NE(middle, nullptr) << h.logger.errors();
    middle->setAxis(-2);
    EXPECT_EQ(middle->getAxis(), -2);
    h.output(middle, "middle");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("last"), (std::vector<int64_t>{2, 2, 3}));
    EXPECT_EQ(h.shapeOf("first"), (std::vector<int64_t>{3, 2, 2}));
    EXPECT_EQ(h.shapeOf("middle"), (std::vector<int64_t>{2, 3, 2}));
    // Index -1 counts from the depth (2); index 4 is outside [-3, 3) and gives an all-off row.
    std::vector<int32_t> const input{1, 2, 4, -1};
    std::vector<float> lastOut(12);
    std::vector<float> firstOut(12);
    std::vector<float> middleOut(12);
    ASSERT_TRUE(h.run({{"indices", input.data()}},
        {{"last", lastOut.data()}, {"first", firstOut.data()}, {"middle", middleOut.data()}}));
    expectClose(lastOut, {-1, 7, -1, -1, -1, 7, -1, -1, -1, -1, -1, 7}, 1e-5F);
    // out[j][i][k] is on where indices[i][k] == j.
    expectClose(firstOut, {-1, -1, -1, -1, 7, -1, -1, -1, -1, 7, -1, 7}, 1e-5F);
    // out[i][j][k]: row i = 0 holds indices 1, 2; row 1 holds 4, -1.
    expectClose(middleOut, {-1, -1, 7, -1, -1, 7, -1, -1, -1, -1, -1, 7}, 1e-5F);
}

TEST(OneHotLayer, DepthFromARuntimeShape)
{
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT64, Dims{1, {-1}});
    ITensor* classes = h.network->addInput("classes", DataType::kFLOAT, Dims{1, {-1}});
    // depth = classes.d0: its shape, reshaped to 0-D.
    IShapeLayer* shape = h.network->addShape(*classes);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    IShuffleLayer* scalar = h.network->addShuffle(*shape->getOutput(0));
    ASSERT_NE(scalar, nullptr) << h.logger.errors();
    scalar->setReshapeDimensions(Dims{0, {}});
    std::vector<int32_t> const offOn{0, 1};
    IOneHotLayer* layer
        = h.network->addOneHot(*indices, *constant(h, DataType::kINT32, Dims{1, {2}}, offOn), *scalar->getOutput(0), 1);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    h.output(layer, "y");
    h.setProfile("indices", Dims{1, {1}}, Dims{1, {3}}, Dims{1, {8}});
    h.setProfile("classes", Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("indices", Dims{1, {3}}));
    ASSERT_TRUE(h.context->setInputShape("classes", Dims{1, {4}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3, 4}));
    std::vector<int64_t> const input{2, 0, 3};
    std::vector<float> const classValues(4, 0.0F);
    std::vector<int32_t> y(12);
    ASSERT_TRUE(h.run({{"indices", input.data()}, {"classes", classValues.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<int32_t>{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(OneHotLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{1, {4}});
    ITensor* floats = h.network->addInput("floats", DataType::kFLOAT, Dims{1, {4}});
    std::vector<float> const offOn{0, 1};
    ITensor* values = constant(h, DataType::kFLOAT, Dims{1, {2}}, offOn);
    std::vector<int32_t> const three{3};
    ITensor* depth = constant(h, DataType::kINT32, Dims{0, {}}, three);
    EXPECT_EQ(h.network->addOneHot(*floats, *values, *depth, -1), nullptr);
    EXPECT_TRUE(errorMentions(h, "one-hot indices (input 0) must be INT32 or INT64, not FLOAT")) << h.logger.errors();
    std::vector<float> const triple{0, 1, 2};
    EXPECT_EQ(
        h.network->addOneHot(*indices, *constant(h, DataType::kFLOAT, Dims{1, {3}}, triple), *depth, -1), nullptr);
    EXPECT_TRUE(errorMentions(h, "one-hot values (input 1) must be a 1-D tensor of two elements")) << h.logger.errors();
    std::vector<int32_t> const zero{0};
    EXPECT_EQ(h.network->addOneHot(*indices, *values, *constant(h, DataType::kINT32, Dims{0, {}}, zero), -1), nullptr);
    EXPECT_TRUE(errorMentions(h, "the one-hot depth is 0; must be positive")) << h.logger.errors();
    ITensor* floatDepth = h.network->addInput("depth", DataType::kFLOAT, Dims{0, {}});
    EXPECT_EQ(h.network->addOneHot(*indices, *values, *floatDepth, -1), nullptr);
    EXPECT_TRUE(errorMentions(h, "the one-hot depth (input 2)")) << h.logger.errors();
    EXPECT_EQ(h.network->addOneHot(*indices, *values, *depth, 2), nullptr);
    EXPECT_TRUE(errorMentions(h, "one-hot axis 2 is out of range [-2, 1] for indices of rank 1")) << h.logger.errors();
    // The error names the layer being added.
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addOneHot: layer \"(Unnamed Layer*")) << h.logger.errors();
}

} // namespace
