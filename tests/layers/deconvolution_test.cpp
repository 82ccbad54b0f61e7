// IDeconvolutionLayer through the network API, built and run on the CPU backend: stride 2 with and without
// overlapping windows, explicit padding, groups and bias. Each expected output is worked out by hand from the
// definition: input element (c, i, j) adds input * kernel[c][k][a][b] to output (k, i * stride + a - prePadding,
// j * stride + b - prePadding), and the bias of map k is added once.
#include "expect_close.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

TEST(DeconvolutionLayer, StrideTwoStampsTheKernelWithBiasAtRuntimeSizes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, -1, -1}});
    std::vector<float> const kernel{1, 10, 100, 1000};
    std::vector<float> const bias{0.5F};
    IDeconvolutionLayer* layer
        = h.network->addDeconvolutionNd(*x, 1, Dims{2, {2, 2}}, floatWeights(kernel), floatWeights(bias));
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setStrideNd(Dims{2, {2, 2}});
    h.output(layer, "y");
    h.setProfile("x", Dims{4, {1, 1, 1, 1}}, Dims{4, {1, 1, 2, 2}}, Dims{4, {1, 1, 4, 4}});
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {1, 1, 2, 2}}));
    // (in - 1) * stride + kernel = 4 on both axes.
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 1, 4, 4}));
    std::vector<float> const input{1, 2, 3, 4};
    std::vector<float> y(16);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    // Stride 2 = kernel size: every input pixel stamps x * kernel into its own 2x2 block, plus 0.5.
    expectClose(y,
        {1.5F, 10.5F, 2.5F, 20.5F, 100.5F, 1000.5F, 200.5F, 2000.5F, //
            3.5F, 30.5F, 4.5F, 40.5F, 300.5F, 3000.5F, 400.5F, 4000.5F},
        1e-5F);
    // A 1x3 input: a 2x6 output.
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {1, 1, 1, 3}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 1, 2, 6}));
    std::vector<float> const row{1, -1, 2};
    std::vector<float> y2(12);
    ASSERT_TRUE(h.run({{"x", row.data()}}, {{"y", y2.data()}}));
    expectClose(y2, {1.5F, 10.5F, -0.5F, -9.5F, 2.5F, 20.5F, 100.5F, 1000.5F, -99.5F, -999.5F, 200.5F, 2000.5F}, 1e-5F);
}

TEST(DeconvolutionLayer, OverlappingWindowsAndPadding)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 1, 3}});
    std::vector<float> const kernel{1, 2, 3};
    IDeconvolutionLayer* full = h.network->addDeconvolutionNd(*x, 1, Dims{2, {1, 3}}, floatWeights(kernel), Weights{});
    ASSERT_NE(full, nullptr) << h.logger.errors();
    full->setStrideNd(Dims{2, {1, 2}});
    h.output(full, "full");
    IDeconvolutionLayer* padded
        = h.network->addDeconvolutionNd(*x, 1, Dims{2, {1, 3}}, floatWeights(kernel), Weights{});
    ASSERT_NE(padded, nullptr) << h.logger.errors();
    padded->setStrideNd(Dims{2, {1, 2}});
    padded->setPaddingNd(Dims{2, {0, 1}});
    h.output(padded, "padded");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("full"), (std::vector<int64_t>{1, 1, 1, 7}));   // (3 - 1) * 2 + 3
    EXPECT_EQ(h.shapeOf("padded"), (std::vector<int64_t>{1, 1, 1, 5})); // 7 - 1 - 1
    std::vector<float> const input{1, 2, 3};
    std::vector<float> fullOut(7);
    std::vector<float> paddedOut(5);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"full", fullOut.data()}, {"padded", paddedOut.data()}}));
    // x0 = 1 stamps 1 2 3 at 0..2, x1 = 2 stamps 2 4 6 at 2..4, x2 = 3 stamps 3 6 9 at 4..6; overlaps add.
    expectClose(fullOut, {1, 2, 5, 4, 9, 6, 9}, 1e-5F);
    // Padding 1 on each side crops the first and last output positions.
    expectClose(paddedOut, {2, 5, 4, 9, 6}, 1e-5F);
}

TEST(DeconvolutionLayer, GroupsKeepChannelsToTheirOwnMaps)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 1, 2}});
    // Kernel [C = 2, K / groups = 2, 1, 1]: channel 0 feeds maps 0 and 1 (weights 1, 2), channel 1 maps 2 and 3
    // (weights 3, 4).
    std::vector<float> const kernel{1, 2, 3, 4};
    std::vector<float> const bias{0.5F, 0, 0, -1};
    IDeconvolutionLayer* layer
        = h.network->addDeconvolutionNd(*x, 4, Dims{2, {1, 1}}, floatWeights(kernel), floatWeights(bias));
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setNbGroups(2);
    EXPECT_EQ(layer->getNbGroups(), 2);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 4, 1, 2}));
    std::vector<float> const input{1, 2, 3, 4}; // channel 0: 1 2; channel 1: 3 4
    std::vector<float> y(8);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {1.5F, 2.5F, 2, 4, 9, 12, 11, 15}, 1e-5F);
}

} // namespace
