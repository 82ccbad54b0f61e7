// ITopKLayer end to end on the CPU backend: values and indices outputs, any k, k from a shape tensor (input 1).
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
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
    ASSERT_TRUE(h.run({{"x", input.data()}},
        {{"topValues", topValues.data()}, {"topIndices", topIndices.data()}, {"minValues", minValues.data()},
            {"minIndices", minIndices.data()}}));
    expectClose(topValues, {9, 9, 5, 4}, 1e-5F);
    EXPECT_EQ(topIndices, (std::vector<int32_t>{1, 3, 2, 3})); // ties: lower index first
    expectClose(minValues, {-2, 0, 1, 4}, 1e-5F);
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

ITensor* int32Scalar(LayerHarness& h, int32_t const& value)
{
    IConstantLayer* layer = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT32, &value, 1});
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    return layer->getOutput(0);
}

TEST(TopKLayer, KFromAConstantShapeTensor)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 5}});
    ITopKLayer* layer = h.network->addTopK(*x, TopKOperation::kMIN, 1, 2U);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    int32_t const three = 3;
    layer->setInput(1, *int32Scalar(h, three));
    EXPECT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getK(), -1); // TensorRT's answer while input 1 gives k
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[1], 3);
    h.output(layer, "values", 0);
    h.output(layer, "indices", 1);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("values"), (std::vector<int64_t>{2, 3}));
    std::vector<float> const input{5, 1, 4, 2, 3, 0, 9, -1, 8, 7};
    std::vector<float> values(6);
    std::vector<int32_t> indices(6);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"values", values.data()}, {"indices", indices.data()}}));
    expectClose(values, {1, 2, 3, -1, 0, 7}, 1e-5F);
    EXPECT_EQ(indices, (std::vector<int32_t>{1, 3, 4, 2, 0, 4}));
    // setK goes back to a static k and removes the k input, as in TensorRT.
    layer->setK(2);
    EXPECT_EQ(layer->getInput(1), nullptr);
    EXPECT_EQ(layer->getK(), 2);
}

TEST(TopKLayer, KFromARuntimeShape)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, -1}});
    ITensor* kSource = h.network->addInput("kSource", DataType::kFLOAT, Dims{1, {-1}});
    // k = kSource.d0: the shape of kSource reshaped to 0-D, a value known only as an expression at build time.
    IShapeLayer* shape = h.network->addShape(*kSource);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    IShuffleLayer* scalar = h.network->addShuffle(*shape->getOutput(0));
    ASSERT_NE(scalar, nullptr) << h.logger.errors();
    scalar->setReshapeDimensions(Dims{0, {}});
    ITopKLayer* layer = h.network->addTopK(*x, TopKOperation::kMAX, 1, 2U, DataType::kINT64);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setInput(1, *scalar->getOutput(0));
    h.output(layer, "values", 0);
    h.output(layer, "indices", 1);
    h.setProfile("x", Dims{2, {1, 4}}, Dims{2, {2, 5}}, Dims{2, {4, 8}});
    h.setProfile("kSource", Dims{1, {1}}, Dims{1, {2}}, Dims{1, {4}});
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    ASSERT_TRUE(h.context->setInputShape("x", Dims{2, {2, 5}}));
    ASSERT_TRUE(h.context->setInputShape("kSource", Dims{1, {2}}));
    EXPECT_EQ(h.shapeOf("values"), (std::vector<int64_t>{2, 2}));
    std::vector<float> const input{5, 1, 4, 2, 3, 0, 9, -1, 8, 7};
    std::vector<float> const kValues(2, 0.0F);
    std::vector<float> values(4);
    std::vector<int64_t> indices(4);
    ASSERT_TRUE(h.run(
        {{"x", input.data()}, {"kSource", kValues.data()}}, {{"values", values.data()}, {"indices", indices.data()}}));
    expectClose(values, {5, 4, 9, 8}, 1e-5F);
    EXPECT_EQ(indices, (std::vector<int64_t>{0, 2, 1, 3}));
    // Another k at run time: kSource of extent 4.
    ASSERT_TRUE(h.context->setInputShape("kSource", Dims{1, {4}}));
    EXPECT_EQ(h.shapeOf("indices"), (std::vector<int64_t>{2, 4}));
    std::vector<float> const moreK(4, 0.0F);
    std::vector<float> values4(8);
    std::vector<int64_t> indices4(8);
    ASSERT_TRUE(h.run(
        {{"x", input.data()}, {"kSource", moreK.data()}}, {{"values", values4.data()}, {"indices", indices4.data()}}));
    expectClose(values4, {5, 4, 3, 2, 9, 8, 7, 0}, 1e-5F);
    EXPECT_EQ(indices4, (std::vector<int64_t>{0, 2, 4, 3, 1, 3, 4, 0}));
}

TEST(TopKLayer, BadKInputs)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 5}});
    int32_t const six = 6;
    int32_t const zero = 0;
    ITensor* sixK = int32Scalar(h, six);
    ITensor* zeroK = int32Scalar(h, zero);
    ITensor* floatK = h.network->addInput("k", DataType::kFLOAT, Dims{0, {}});
    ITopKLayer* layer = h.network->addTopK(*x, TopKOperation::kMAX, 1, 2U);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setName("topk");
    // Adding any layer infers every layer's shapes again: a bad k is reported with the top-k layer's name.
    layer->setInput(1, *sixK);
    EXPECT_EQ(h.network->addIdentity(*x), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "layer \"topk\": top-k k 6 exceeds the extent 5 of axis 1"))
        << h.logger.errors();
    layer->setInput(1, *zeroK);
    EXPECT_EQ(h.network->addIdentity(*x), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "top-k k is 0; must be positive")) << h.logger.errors();
    layer->setInput(1, *floatK);
    EXPECT_EQ(h.network->addIdentity(*x), nullptr);
    EXPECT_TRUE(
        kiln::test::errorMentions(h, "the top-k k (input 1) must be a 0-D INT32 or INT64 tensor, not a 0-D FLOAT"))
        << h.logger.errors();
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
