// INormalizationLayer end to end on the CPU backend: layer and group normalization.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

ITensor* floatConstant(LayerHarness& h, Dims dims, std::vector<float> const& values)
{
    IConstantLayer* layer = h.network->addConstant(dims, floatWeights(values));
    return layer ? layer->getOutput(0) : nullptr;
}

TEST(NormalizationLayer, LayerNormOverLastAxis)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 2}});
    ITensor* scale = floatConstant(h, Dims{2, {1, 2}}, {1, 2});
    ITensor* bias = floatConstant(h, Dims{2, {1, 2}}, {0, 1});
    INormalizationLayer* layer = h.network->addNormalization(*x, *scale, *bias, 2U);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_FLOAT_EQ(layer->getEpsilon(), 1e-5F);
    EXPECT_EQ(layer->getNbGroups(), 1);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input{1, 3, 5, 9}; // rows: mean 2 variance 1; mean 7 variance 4
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {-1, 3, -1, 3}, 1e-4F);
}

TEST(NormalizationLayer, GroupNormWithRuntimeBatch)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {-1, 4, 1}});
    ITensor* scale = floatConstant(h, Dims{3, {1, 4, 1}}, {1, 1, 1, 1});
    ITensor* bias = floatConstant(h, Dims{3, {1, 4, 1}}, {0, 0, 0, 0});
    INormalizationLayer* layer = h.network->addNormalization(*x, *scale, *bias, 4U);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setNbGroups(2);
    layer->setEpsilon(0.0F);
    h.output(layer, "y");
    h.setProfile("x", Dims{3, {1, 4, 1}}, Dims{3, {1, 4, 1}}, Dims{3, {3, 4, 1}});
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    ASSERT_TRUE(h.context->setInputShape("x", Dims{3, {2, 4, 1}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 4, 1}));
    // Groups (1, 3) and (10, 14), then (0, 4) and (5, 5.5): each normalizes to (-1, 1).
    std::vector<float> const input{1, 3, 10, 14, 0, 4, 5, 5.5F};
    std::vector<float> y(8);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {-1, 1, -1, 1, -1, 1, -1, 1}, 1e-4F);
}

TEST(NormalizationLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {1, 3, 2}});
    ITensor* scale = floatConstant(h, Dims{3, {1, 3, 1}}, {1, 1, 1});
    ITensor* bias = floatConstant(h, Dims{3, {1, 3, 1}}, {0, 0, 0});
    EXPECT_EQ(h.network->addNormalization(*x, *scale, *bias, 0U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "the axes mask is empty")) << h.logger.errors();
    EXPECT_EQ(h.network->addNormalization(*x, *scale, *bias, 8U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "must name axes of the input's rank 3")) << h.logger.errors();
    ITensor* flat = floatConstant(h, Dims{1, {3}}, {1, 1, 1});
    EXPECT_EQ(h.network->addNormalization(*x, *flat, *bias, 4U), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "must have the data's rank 3")) << h.logger.errors();
}

} // namespace
