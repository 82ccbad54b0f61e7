// IPaddingLayer end to end on the CPU backend.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

TEST(PaddingLayer, PadsAndCropsInnermostDims)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {1, 2, 3}}); // rows (1,2,3), (4,5,6)
    // Rows: one zero row before; columns: crop the first, one zero after.
    IPaddingLayer* layer = h.network->addPaddingNd(*x, Dims{2, {1, -1}}, Dims{2, {0, 1}});
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getPrePaddingNd().d[1], -1);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 3, 3}));
    std::vector<float> const input{1, 2, 3, 4, 5, 6};
    std::vector<float> y(9, -1.0F);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {0, 0, 0, 2, 3, 0, 5, 6, 0}, 1e-5F);
}

TEST(PaddingLayer, RuntimeDimensionsAndErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {-1, 2, -1, 3}});
    IPaddingLayer* layer = h.network->addPaddingNd(*x, Dims{2, {2, 0}}, Dims{2, {1, -2}});
    h.output(layer, "y");
    h.setProfile("x", Dims{4, {1, 2, 1, 3}}, Dims{4, {2, 2, 4, 3}}, Dims{4, {3, 2, 8, 3}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {3, 2, 5, 3}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3, 2, 8, 1}));

    LayerHarness bad;
    ITensor* z = bad.network->addInput("z", DataType::kFLOAT, Dims{2, {2, 2}});
    EXPECT_EQ(bad.network->addPaddingNd(*z, Dims{2, {0, 0}}, Dims{1, {0}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(bad, "the pre-padding has 2 dimensions but the post-padding 1"))
        << bad.logger.errors();
    EXPECT_EQ(bad.network->addPaddingNd(*z, Dims{1, {-2}}, Dims{1, {-1}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(bad, "crops axis 1 below zero")) << bad.logger.errors();
}

} // namespace
