// ISelectLayer end to end on the CPU backend.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

TEST(SelectLayer, BroadcastsConditionAndBranches)
{
    LayerHarness h;
    ITensor* c = h.network->addInput("c", DataType::kBOOL, Dims{2, {2, 1}});
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {1, 3}});
    ISelectLayer* layer = h.network->addSelect(*c, *a, *b);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 3}));
    bool const condition[] = {true, false};
    std::vector<float> const av{1, 2, 3, 4, 5, 6};
    std::vector<float> const bv{-1, -2, -3};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"c", condition}, {"a", av.data()}, {"b", bv.data()}}, {{"y", y.data()}}));
    expectClose(y, {1, 2, 3, -1, -2, -3}, 1e-5F);
}

TEST(SelectLayer, RuntimeDimensionsAndErrors)
{
    LayerHarness h;
    ITensor* c = h.network->addInput("c", DataType::kBOOL, Dims{2, {-1, 1}});
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {-1, 4}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {1, 4}});
    h.output(h.network->addSelect(*c, *a, *b), "y");
    h.setProfile("c", Dims{2, {1, 1}}, Dims{2, {2, 1}}, Dims{2, {4, 1}});
    h.setProfile("a", Dims{2, {1, 4}}, Dims{2, {2, 4}}, Dims{2, {4, 4}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("c", Dims{2, {3, 1}}));
    ASSERT_TRUE(h.context->setInputShape("a", Dims{2, {3, 4}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3, 4}));

    LayerHarness bad;
    ITensor* fc = bad.network->addInput("fc", DataType::kFLOAT, Dims{1, {2}});
    ITensor* fa = bad.network->addInput("fa", DataType::kFLOAT, Dims{1, {2}});
    ITensor* ia = bad.network->addInput("ia", DataType::kINT32, Dims{1, {2}});
    EXPECT_EQ(bad.network->addSelect(*fc, *fa, *fa), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(bad, "the select condition must be BOOL")) << bad.logger.errors();
    ITensor* bc = bad.network->addInput("bc", DataType::kBOOL, Dims{1, {2}});
    EXPECT_EQ(bad.network->addSelect(*bc, *fa, *ia), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(bad, "must have one type")) << bad.logger.errors();
}

} // namespace
