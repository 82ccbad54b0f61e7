// Extents a hostile or unusual model gives: sizes that overflow int64, extents of 0 that broadcast, and declared
// counts that must not bound a loop. Each layer is added through the C++ API and, where the bug was at run time,
// built and run on the CPU backend.
#include "expect_close.h"
#include "round_trip.h"

#include <chrono>
#include <limits>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

template <typename T>
ITensor* constant(LayerHarness& h, DataType type, Dims const& dims, std::vector<T> const& values)
{
    IConstantLayer* layer
        = h.network->addConstant(dims, Weights{type, values.data(), static_cast<int64_t>(values.size())});
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    return layer != nullptr ? layer->getOutput(0) : nullptr;
}

TEST(ExtremeSizes, OneHotWithAConstantDepthPastInt64IsRefusedWhenAdded)
{
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{1, {3}});
    std::vector<float> const offOn{0.0F, 1.0F};
    ITensor* values = constant(h, DataType::kFLOAT, Dims{1, {2}}, offOn);
    // 3 x 2^62 elements: the count wraps to a negative one, the byte size to a small one.
    std::vector<int64_t> const depth{int64_t{1} << 62};
    EXPECT_EQ(h.network->addOneHot(*indices, *values, *constant(h, DataType::kINT64, Dims{0, {}}, depth), -1), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addOneHot: layer \"(Unnamed Layer*")) << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "more elements or bytes than a 64-bit size counts")) << h.logger.errors();
    // 2^61 FLOAT elements count in int64, but their bytes do not.
    std::vector<int64_t> const bytesWrap{int64_t{1} << 61};
    EXPECT_EQ(
        h.network->addOneHot(*indices, *values, *constant(h, DataType::kINT64, Dims{0, {}}, bytesWrap), -1), nullptr);
}

TEST(ExtremeSizes, OneHotWhoseSizeOverflowsAtAProfileShapeIsRefusedByTheBuild)
{
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{1, {-1}});
    std::vector<float> const offOn{0.0F, 1.0F};
    std::vector<int32_t> const depth{std::numeric_limits<int32_t>::max()};
    IOneHotLayer* layer = h.network->addOneHot(*indices, *constant(h, DataType::kFLOAT, Dims{1, {2}}, offOn),
        *constant(h, DataType::kINT32, Dims{0, {}}, depth), -1);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setName("hot");
    h.output(layer, "y");
    // At kMAX the output has 2^34 x (2^31 - 1) elements: more than int64 counts (it wrapped to a plan of 0 bytes).
    h.setProfile("indices", Dims{1, {1}}, Dims{1, {2}}, Dims{1, {int64_t{1} << 34}});
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail("layer \"hot\": \"y\" of shape (17179869184, 2147483647) at profile 0 kMAX holds more "
                        "elements or bytes than a 64-bit size counts");
}

TEST(ExtremeSizes, ASizeThatCountsButCannotBeAllocatedFailsCleanly)
{
    // 2^40 x 2^10 FLOAT elements: 2^52 bytes fit int64 but no host's memory. The context is refused with an error
    // rather than an exception escaping the noexcept API.
    LayerHarness h;
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{1, {1024}});
    std::vector<float> const offOn{0.0F, 1.0F};
    std::vector<int64_t> const depth{int64_t{1} << 40};
    IOneHotLayer* layer = h.network->addOneHot(*indices, *constant(h, DataType::kFLOAT, Dims{1, {2}}, offOn),
        *constant(h, DataType::kINT64, Dims{0, {}}, depth), -1);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    // Reduced to [1024], the one-hot output is an activation in the context's memory (an output would be the
    // application's).
    IReduceLayer* sum = h.network->addReduce(*layer->getOutput(0), ReduceOperation::kSUM, 1U << 1, false);
    h.output(sum, "y");
    ASSERT_FALSE(h.build());
    EXPECT_TRUE(errorMentions(h, "ICudaEngine::createExecutionContext: out of host memory")) << h.logger.errors();
}

TEST(ExtremeSizes, ConstantDimensionsWhoseVolumeWrapsAreRefused)
{
    LayerHarness h;
    // 2^32 x 2^32 wraps to 0 elements, which an empty weights array matched.
    EXPECT_EQ(
        h.network->addConstant(Dims{2, {int64_t{1} << 32, int64_t{1} << 32}}, Weights{DataType::kFLOAT, nullptr, 0}),
        nullptr);
    EXPECT_TRUE(errorMentions(h, "does not match the volume")) << h.logger.errors();
}

TEST(ExtremeSizes, ElementWiseOfAnEmptyShapeTensorAndAScalarEntry)
{
    // The shape of a 0-D tensor is a shape tensor of no entries; adding a [1] constant to it broadcasts to no entries
    // (exports slice shapes down to nothing so). Inference indexed entry 0 of the empty operand.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{0, {}});
    IShapeLayer* shape = h.network->addShape(*x);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    std::vector<int64_t> const one{1};
    IElementWiseLayer* sum = h.network->addElementWise(
        *shape->getOutput(0), *constant(h, DataType::kINT64, Dims{1, {1}}, one), ElementWiseOperation::kSUM);
    ASSERT_NE(sum, nullptr) << h.logger.errors();
    Dims const dims = sum->getOutput(0)->getDimensions();
    ASSERT_EQ(dims.nbDims, 1);
    EXPECT_EQ(dims.d[0], 0);
    // The same through a select.
    std::vector<uint8_t> const yes{1};
    ISelectLayer* select = h.network->addSelect(*constant(h, DataType::kBOOL, Dims{1, {1}}, yes), *shape->getOutput(0),
        *constant(h, DataType::kINT64, Dims{1, {1}}, one));
    ASSERT_NE(select, nullptr) << h.logger.errors();
    EXPECT_EQ(select->getOutput(0)->getDimensions().d[0], 0);
}

TEST(ExtremeSizes, AZeroExtentBroadcastsWithARunTimeOne)
{
    // 0 with an extent known at run time gives 0 (numpy's rule: 0 with 1 is 0), not the larger of the two.
    LayerHarness h;
    ITensor* empty = h.network->addInput("empty", DataType::kFLOAT, Dims{2, {0, 3}});
    ITensor* rows = h.network->addInput("rows", DataType::kFLOAT, Dims{2, {-1, 3}});
    IElementWiseLayer* sum = h.network->addElementWise(*empty, *rows, ElementWiseOperation::kSUM);
    ASSERT_NE(sum, nullptr) << h.logger.errors();
    EXPECT_EQ(sum->getOutput(0)->getDimensions().d[0], 0);
    h.output(sum, "sum");
    std::vector<uint8_t> const yes{1};
    ISelectLayer* select = h.network->addSelect(*constant(h, DataType::kBOOL, Dims{2, {1, 1}}, yes), *rows, *empty);
    ASSERT_NE(select, nullptr) << h.logger.errors();
    EXPECT_EQ(select->getOutput(0)->getDimensions().d[0], 0);
    h.output(select, "select");
    h.setProfile("rows", Dims{2, {1, 3}}, Dims{2, {1, 3}}, Dims{2, {1, 3}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("rows", Dims{2, {1, 3}}));
    EXPECT_EQ(h.shapeOf("sum"), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(h.shapeOf("select"), (std::vector<int64_t>{0, 3}));
    std::vector<float> const row{1, 2, 3};
    float unused = 0.0F;
    ASSERT_TRUE(h.run({{"empty", &unused}, {"rows", row.data()}}, {{"sum", &unused}, {"select", &unused}}));
}

TEST(ExtremeSizes, AConvolutionOverAHugeChannelCountFailsAtOnce)
{
    // Weights that fit no group count over 2^40 channels: the check tried every count up to C, about 10^12 of them.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, int64_t{1} << 40, 1, 1}});
    std::vector<float> const weights(3, 1.0F);
    auto const start = std::chrono::steady_clock::now();
    EXPECT_EQ(h.network->addConvolutionNd(*x, 1, Dims{2, {1, 1}}, floatWeights(weights), Weights{}), nullptr);
    EXPECT_EQ(h.network->addDeconvolutionNd(*x, 1, Dims{2, {1, 1}}, floatWeights(weights), Weights{}), nullptr);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(errorMentions(h, "the kernel weights have 3 values; expected 1099511627776 for 1 group(s)"))
        << h.logger.errors();
    // A kernel whose count overflows int64 is no count the weights have.
    ITensor* small = h.network->addInput("small", DataType::kFLOAT, Dims{4, {1, 2, 1, 1}});
    int64_t const huge = int64_t{1} << 62;
    EXPECT_EQ(h.network->addConvolutionNd(*small, 4, Dims{2, {huge, huge}}, floatWeights(weights), Weights{}), nullptr);
    EXPECT_TRUE(errorMentions(h, "expected more than int64 counts")) << h.logger.errors();
}

TEST(ExtremeSizes, PoolingPaddingThatOverflowsIsAnError)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 4, 4}});
    int64_t const big = std::numeric_limits<int64_t>::max() / 2 + 1;
    IPoolingLayer* pool = h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {2, 2}});
    ASSERT_NE(pool, nullptr) << h.logger.errors();
    pool->setPrePadding(Dims{2, {big, 0}});
    pool->setPostPadding(Dims{2, {big, 0}});
    h.output(pool, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail("the output extent on spatial axis 0 overflows int64");
}

TEST(ExtremeSizes, PaddingAmountsWhoseSumOverflowsAreAnError)
{
    // Before and after were added in plain int64: the sum wrapped around and read as a crop far below zero.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 4}});
    int64_t const half = int64_t{1} << 62;
    EXPECT_EQ(h.network->addPaddingNd(*x, Dims{1, {half}}, Dims{1, {half}}), nullptr);
    EXPECT_TRUE(errorMentions(h,
        "the padding of axis 1 (4611686018427387904 before, 4611686018427387904 after) "
        "overflows int64"))
        << h.logger.errors();
    // A sum that fits but an extent that does not: the shape arithmetic refuses it.
    EXPECT_EQ(h.network->addPaddingNd(*x, Dims{1, {std::numeric_limits<int64_t>::max() - 2}}, Dims{1, {0}}), nullptr);
    EXPECT_TRUE(errorMentions(h, "could not be computed")) << h.logger.errors();
}

TEST(ExtremeSizes, ConvolutionDilationThatOverflowsIsAnError)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 4, 4}});
    std::vector<float> const weights(9, 1.0F);
    IConvolutionLayer* conv = h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, floatWeights(weights), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setDilationNd(Dims{2, {std::numeric_limits<int64_t>::max() / 2 + 1, 1}}); // 2^62 x (3 - 1) + 1
    h.output(conv, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail("the dilated kernel extent on spatial axis 0 overflows int64");
}

TEST(ExtremeSizes, AResizeScalePastInt64IsAnError)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, int64_t{1} << 40}});
    IResizeLayer* resize = h.network->addResize(*x);
    ASSERT_NE(resize, nullptr) << h.logger.errors();
    std::vector<float> const scales{1.0F, 1e10F};
    resize->setScales(scales.data(), 2);
    h.output(resize, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail("makes extent 1099511627776 larger than int64 holds");
}

} // namespace
