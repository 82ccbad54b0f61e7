// Each layer kind end to end (network -> plan -> runtime on the CPU backend) against hand-computed values.
#include "expect_close.h"
#include "layer_harness.h"

#include <cmath>
#include <cstring>
#include <numeric>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

std::vector<float> iota(size_t count, float start = 1.0F)
{
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), start);
    return values;
}

TEST(ConvolutionLayer, PaddedStridedWithBias)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 4, 4}});
    std::vector<float> const kernel(9, 1.0F);
    std::vector<float> const bias{0.5F};
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, floatWeights(kernel), floatWeights(bias));
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    EXPECT_EQ(conv->getStrideNd().d[0], 1);
    EXPECT_EQ(conv->getDilationNd().d[1], 1);
    conv->setPaddingNd(Dims{2, {1, 1}});
    conv->setStrideNd(Dims{2, {2, 2}});
    h.output(conv, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input = iota(16); // rows 1..4, 5..8, 9..12, 13..16
    std::vector<float> y(4, -1.0F);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    // Windows centred on (0,0), (0,2), (2,0), (2,2) of the zero-padded input.
    expectClose(y,
        {1 + 2 + 5 + 6 + 0.5F, 2 + 3 + 4 + 6 + 7 + 8 + 0.5F, 5 + 6 + 9 + 10 + 13 + 14 + 0.5F,
            6 + 7 + 8 + 10 + 11 + 12 + 14 + 15 + 16 + 0.5F},
        1e-5F);
}

TEST(ConvolutionLayer, GroupedDilated)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {1, 2, 5}});
    // Two groups of one channel: map 0 sums x0[i] + x0[i+2] * 2, map 1 is -x1[i] + x1[i+2].
    std::vector<float> const kernel{1, 2, -1, 1};
    IConvolutionLayer* conv = h.network->addConvolutionNd(*x, 2, Dims{1, {2}}, floatWeights(kernel), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setNbGroups(2);
    conv->setDilationNd(Dims{1, {2}});
    h.output(conv, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1, 2, 3, 4, 5, 10, 20, 30, 40, 50};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {1 + 6, 2 + 8, 3 + 10, -10 + 30, -20 + 40, -30 + 50}, 1e-5F);
}

TEST(PoolingLayer, MaxAndAverage)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 4, 4}});
    IPoolingLayer* maxPool = h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {2, 2}});
    ASSERT_NE(maxPool, nullptr) << h.logger.errors();
    maxPool->setStrideNd(Dims{2, {2, 2}});
    IPoolingLayer* avgPool = h.network->addPoolingNd(*x, PoolingType::kAVERAGE, Dims{2, {3, 3}});
    h.output(maxPool, "max");
    h.output(avgPool, "avg");
    ASSERT_TRUE(h.build());
    std::vector<float> const input = iota(16);
    std::vector<float> maxOut(4);
    std::vector<float> avgOut(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"max", maxOut.data()}, {"avg", avgOut.data()}}));
    expectClose(maxOut, {6, 8, 14, 16}, 1e-5F);
    // 3x3 windows with stride 1: averages centred on 6, 7, 10, 11.
    expectClose(avgOut, {6, 7, 10, 11}, 1e-5F);
}

TEST(ScaleLayer, PerChannel)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 1, 2}});
    std::vector<float> const shift{1, -1};
    std::vector<float> const scale{2, 3};
    IScaleLayer* layer
        = h.network->addScale(*x, ScaleMode::kCHANNEL, floatWeights(shift), floatWeights(scale), Weights{});
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getChannelAxis(), 1);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1, 2, 3, 4};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {3, 5, 8, 11}, 1e-5F);
}

TEST(ShuffleLayer, TransposeReshapeTranspose)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 2}});
    IShuffleLayer* layer = h.network->addShuffle(*x);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setFirstTranspose(Permutation{{1, 0, 2}}); // (3, 2, 2)
    layer->setReshapeDimensions(Dims{2, {0, -1}});    // (3, 4)
    layer->setSecondTranspose(Permutation{{1, 0}});   // (4, 3)
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{4, 3}));
    std::vector<float> const input = iota(12, 0.0F); // x[a][b][c] = 6a + 2b + c
    std::vector<float> y(12);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    // t[b][a][c] = x[a][b][c]; r[b][4-index a*2+c]; y[j][b] = r[b][j].
    std::vector<float> expected(12);
    for (int b = 0; b < 3; ++b)
    {
        for (int a = 0; a < 2; ++a)
        {
            for (int c = 0; c < 2; ++c)
            {
                expected[(a * 2 + c) * 3 + b] = static_cast<float>(6 * a + 2 * b + c);
            }
        }
    }
    expectClose(y, expected, 1e-5F);
}

TEST(ConcatenationLayer, AlongChannels)
{
    LayerHarness h;
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {2, 2}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {2, 2}});
    ITensor* inputs[] = {a, b};
    IConcatenationLayer* layer = h.network->addConcatenation(inputs, 2);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getAxis(), 0);
    layer->setAxis(1);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[1], 4);
    std::vector<float> const av{1, 2, 7, 8};
    std::vector<float> const bv{3, 4, 5, 6};
    std::vector<float> y(8);
    ASSERT_TRUE(h.run({{"a", av.data()}, {"b", bv.data()}}, {{"y", y.data()}}));
    expectClose(y, {1, 2, 3, 4, 7, 8, 5, 6}, 1e-5F);
}

TEST(MatrixMultiplyLayer, WithConstantTransposed)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {1, 3}});
    std::vector<float> const weights{1, 0, 2, 0, 1, -1}; // (2, 3), used transposed
    IConstantLayer* constant = h.network->addConstant(Dims{2, {2, 3}}, floatWeights(weights));
    ASSERT_NE(constant, nullptr) << h.logger.errors();
    IMatrixMultiplyLayer* mm = h.network->addMatrixMultiply(
        *x, MatrixOperation::kNONE, *constant->getOutput(0), MatrixOperation::kTRANSPOSE);
    h.output(mm, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1, 2, 3};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {7, -1}, 1e-5F);
}

TEST(SoftMaxLayer, DefaultAxisAndSetAxes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 1, 2}});
    ISoftMaxLayer* byDefault = h.network->addSoftMax(*x);
    ASSERT_NE(byDefault, nullptr) << h.logger.errors();
    EXPECT_EQ(byDefault->getAxes(), 1U); // rank 3: axis rank - 3 = 0
    ISoftMaxLayer* last = h.network->addSoftMax(*x);
    last->setAxes(1U << 2);
    h.output(byDefault, "first");
    h.output(last, "last");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{0, 1, 2, 1};
    std::vector<float> first(4);
    std::vector<float> lastOut(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"first", first.data()}, {"last", lastOut.data()}}));
    float const e1 = std::exp(1.0F);
    float const e2 = std::exp(2.0F);
    expectClose(first, {1 / (1 + e2), 0.5F, e2 / (1 + e2), 0.5F}, 1e-5F);
    expectClose(lastOut, {1 / (1 + e1), e1 / (1 + e1), e1 / (1 + e1), 1 / (1 + e1)}, 1e-5F);
}

TEST(ElementwiseFamily, UnaryIdentityCastShape)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {1, 3}});
    h.output(h.network->addUnary(*x, UnaryOperation::kNEG), "neg");
    h.output(h.network->addIdentity(*x), "same");
    h.output(h.network->addCast(*x, DataType::kINT32), "int");
    IShapeLayer* shape = h.network->addShape(*x);
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    EXPECT_EQ(shape->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_TRUE(shape->getOutput(0)->isShapeTensor());
    // Shape tensors feed shape arithmetic; cast to float to read the values as an ordinary output.
    h.output(h.network->addCast(*shape->getOutput(0), DataType::kFLOAT), "dims");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1.5F, -2.7F, 3.0F};
    std::vector<float> neg(3);
    std::vector<float> same(3);
    std::vector<int32_t> asInt(3);
    std::vector<float> dims(2);
    ASSERT_TRUE(h.run({{"x", input.data()}},
        {{"neg", neg.data()}, {"same", same.data()}, {"int", asInt.data()}, {"dims", dims.data()}}));
    expectClose(neg, {-1.5F, 2.7F, -3.0F}, 1e-5F);
    expectClose(same, input, 1e-5F);
    EXPECT_EQ(asInt, (std::vector<int32_t>{1, -2, 3}));
    expectClose(dims, {1, 3}, 1e-5F);
}

TEST(LayerPlan, SerializeRoundTripKeepsEveryParameter)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 4, 4}});
    std::vector<float> const kernel(2 * 1 * 3 * 3, 0.25F);
    std::vector<float> const bias{1, 2};
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*x, 2, Dims{2, {3, 3}}, floatWeights(kernel), floatWeights(bias));
    conv->setNbGroups(2);
    conv->setPaddingMode(PaddingMode::kSAME_UPPER);
    IDeconvolutionLayer* deconv = h.network->addDeconvolutionNd(
        *conv->getOutput(0), 2, Dims{2, {2, 2}}, floatWeights(std::vector<float>(16, 0.5F)), Weights{});
    ASSERT_NE(deconv, nullptr) << h.logger.errors();
    deconv->setStrideNd(Dims{2, {2, 2}});
    IPoolingLayer* pool = h.network->addPoolingNd(*deconv->getOutput(0), PoolingType::kAVERAGE, Dims{2, {2, 2}});
    pool->setStrideNd(Dims{2, {2, 2}});
    pool->setAverageCountExcludesPadding(false);
    pool->setPrePadding(Dims{2, {1, 0}});
    std::vector<float> const scale{2, 3};
    IScaleLayer* scaleLayer
        = h.network->addScale(*pool->getOutput(0), ScaleMode::kCHANNEL, Weights{}, floatWeights(scale), Weights{});
    IShuffleLayer* shuffle = h.network->addShuffle(*scaleLayer->getOutput(0));
    shuffle->setReshapeDimensions(Dims{2, {0, -1}});
    ISoftMaxLayer* softmax = h.network->addSoftMax(*shuffle->getOutput(0));
    softmax->setAxes(2U);
    h.output(softmax, "y");
    ASSERT_TRUE(h.build());
    std::unique_ptr<IHostMemory> again(h.engine->serialize());
    ASSERT_NE(again, nullptr);
    ASSERT_EQ(again->size(), h.plan->size());
    EXPECT_EQ(std::memcmp(again->data(), h.plan->data(), h.plan->size()), 0);
    // Deconvolution (2x2, stride 2) doubles 4x4 to 8x8; pooling with pre-padding 1 on H: 9/2 -> 4, 8/2 -> 4.
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 32}));
    std::vector<float> input(32, 1.0F);
    std::vector<float> y(32);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    float sum = 0;
    for (float v : y)
    {
        sum += v;
    }
    EXPECT_NEAR(sum, 1.0F, 1e-5F);
}

} // namespace
