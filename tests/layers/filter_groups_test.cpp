// The group count of convolution and deconvolution: channels and output maps that the count does not divide, and
// kernel weights sized for another count, are rejected with an error naming the layer.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

TEST(FilterGroups, ChannelsNotDivisibleByGroups)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 2, 2}});
    // Weights for 2 groups (K * C / 2 = 8); the layer is added with the default count 1, then set to 3.
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 4, Dims{2, {1, 1}}, floatWeights(std::vector<float>(8, 1.0F)), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setName("conv");
    conv->setNbGroups(3);
    h.output(conv, "y");
    h.expectBuildToFail("layer \"conv\": the input's 4 channels are not divisible by the convolution's 3 groups");
}

TEST(FilterGroups, OutputMapsNotDivisibleByGroups)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 2, 2}});
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 2, Dims{2, {1, 1}}, floatWeights(std::vector<float>(8, 1.0F)), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setName("conv");
    conv->setNbGroups(4);
    h.output(conv, "y");
    h.expectBuildToFail("layer \"conv\": the 2 output maps are not divisible by the convolution's 4 groups");
}

TEST(FilterGroups, DeconvolutionChannelsNotDivisibleByGroups)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 3, 2, 2}});
    IDeconvolutionLayer* deconv
        = h.network->addDeconvolutionNd(*x, 6, Dims{2, {1, 1}}, floatWeights(std::vector<float>(18, 1.0F)), Weights{});
    ASSERT_NE(deconv, nullptr) << h.logger.errors();
    deconv->setName("deconv");
    deconv->setNbGroups(2);
    h.output(deconv, "y");
    h.expectBuildToFail("layer \"deconv\": the input's 3 channels are not divisible by the deconvolution's 2 groups");
}

TEST(FilterGroups, WeightsMustFitTheGroupCountSet)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 2, 2}});
    // 8 values fit 2 groups (4 * 4 / 2); with 4 groups the kernel needs 4 * 4 / 4 = 4.
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 4, Dims{2, {1, 1}}, floatWeights(std::vector<float>(8, 1.0F)), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setName("conv");
    conv->setNbGroups(4);
    h.output(conv, "y");
    h.expectBuildToFail("layer \"conv\": the kernel weights have 8 values; expected 4 for 4 group(s)");
}

TEST(FilterGroups, WeightsForAGroupCountNeverSetFailWhenRun)
{
    // While the count is the default 1, shape inference accepts weights for another count (applications call
    // setNbGroups after addConvolutionNd); running then says what is wrong instead of reading past the weights.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 1, 1}});
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 4, Dims{2, {1, 1}}, floatWeights(std::vector<float>(8, 1.0F)), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setName("conv");
    h.output(conv, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input(4, 1.0F);
    std::vector<float> y(4);
    ASSERT_TRUE(h.context->setTensorAddress("x", const_cast<float*>(input.data())));
    ASSERT_TRUE(h.context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "layer \"conv\": the convolution kernel weights hold 8 values but 1 group(s)"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "setNbGroups")) << h.logger.errors();
}

TEST(FilterGroups, GroupedConvolutionByHand)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 1, 2}});
    // Two groups of one channel: map 0 = 2 * channel 0, map 1 = 3 * channel 1.
    std::vector<float> const kernel{2, 3};
    IConvolutionLayer* conv = h.network->addConvolutionNd(*x, 2, Dims{2, {1, 1}}, floatWeights(kernel), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setNbGroups(2);
    h.output(conv, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1, 2, 3, 4};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    kiln::test::expectClose(y, {2, 4, 9, 12}, 1e-5F);
}

} // namespace
