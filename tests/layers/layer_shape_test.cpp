// Output shapes with run-time dimensions, shape-tensor values, and the add* methods' argument errors.
#include "layer_harness.h"

namespace
{

using namespace nvinfer1;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

TEST(LayerShapes, ConvolutionAndPoolingFollowRuntimeDimensions)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {-1, 1, -1, 5}});
    std::vector<float> const kernel(9, 1.0F);
    IConvolutionLayer* conv = h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, floatWeights(kernel), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setStrideNd(Dims{2, {2, 2}});
    conv->setPaddingMode(PaddingMode::kSAME_UPPER);
    IPoolingLayer* pool = h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {2, 2}});
    pool->setStrideNd(Dims{2, {2, 2}});
    pool->setPaddingMode(PaddingMode::kEXPLICIT_ROUND_UP);
    h.output(conv, "conv");
    h.output(pool, "pool");
    EXPECT_EQ(conv->getOutput(0)->getDimensions().d[2], -1);
    h.setProfile("x", Dims{4, {1, 1, 3, 5}}, Dims{4, {2, 1, 7, 5}}, Dims{4, {3, 1, 9, 5}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {3, 1, 7, 5}}));
    EXPECT_EQ(h.shapeOf("conv"), (std::vector<int64_t>{3, 1, 4, 3})); // ceil(7/2), ceil(5/2)
    EXPECT_EQ(h.shapeOf("pool"), (std::vector<int64_t>{3, 1, 4, 3})); // ceil((7-2)/2)+1, ceil(3/2)+1
}

TEST(LayerShapes, ShuffleReshapesFromAShapeTensor)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 6}});
    ITensor* like = h.network->addInput("like", DataType::kFLOAT, Dims{3, {-1, 2, 3}});
    IShapeLayer* shape = h.network->addShape(*like);
    IShuffleLayer* shuffle = h.network->addShuffle(*x);
    shuffle->setInput(1, *shape->getOutput(0));
    h.output(shuffle, "y");
    EXPECT_EQ(shuffle->getOutput(0)->getDimensions().nbDims, 3);
    h.setProfile("x", Dims{2, {1, 6}}, Dims{2, {2, 6}}, Dims{2, {4, 6}});
    h.setProfile("like", Dims{3, {1, 2, 3}}, Dims{3, {2, 2, 3}}, Dims{3, {4, 2, 3}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{2, {3, 6}}));
    ASSERT_TRUE(h.context->setInputShape("like", Dims{3, {3, 2, 3}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3, 2, 3}));
    std::vector<float> input(18);
    for (size_t i = 0; i < input.size(); ++i)
    {
        input[i] = static_cast<float>(i);
    }
    std::vector<float> likeData(18, 0.0F);
    std::vector<float> y(18, -1.0F);
    ASSERT_TRUE(h.run({{"x", input.data()}, {"like", likeData.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, input); // a reshape keeps the row-major order
}

TEST(LayerShapes, ShuffleFlattensARuntimeBatchWithMinusOne)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {-1, 2, 2, 2}});
    IShuffleLayer* flatten = h.network->addShuffle(*x);
    flatten->setReshapeDimensions(Dims{2, {0, -1}});
    h.output(flatten, "y");
    h.setProfile("x", Dims{4, {1, 2, 2, 2}}, Dims{4, {2, 2, 2, 2}}, Dims{4, {5, 2, 2, 2}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {5, 2, 2, 2}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{5, 8}));
}

TEST(LayerShapes, ConcatenationAndMatrixMultiplyWithRuntimeBatch)
{
    LayerHarness h;
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {-1, 3}});
    ITensor* inputs[] = {a, a};
    IConcatenationLayer* concat = h.network->addConcatenation(inputs, 2);
    ASSERT_NE(concat, nullptr) << h.logger.errors();
    std::vector<float> const w(12, 1.0F);
    IConstantLayer* weights = h.network->addConstant(Dims{2, {3, 4}}, floatWeights(w));
    IMatrixMultiplyLayer* mm = h.network->addMatrixMultiply(
        *concat->getOutput(0), MatrixOperation::kNONE, *weights->getOutput(0), MatrixOperation::kNONE);
    h.output(mm, "y");
    h.setProfile("a", Dims{2, {1, 3}}, Dims{2, {2, 3}}, Dims{2, {4, 3}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("a", Dims{2, {3, 3}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{6, 4}));
}

TEST(LayerShapes, AWindowBeyondTheInputWaitsUntilTheBuildForItsPadding)
{
    // TensorRT's API adds a convolution or pooling layer before it sets the padding, as the ONNX parser does for
    // SSDlite's 3x3 stride-2 convolution of a 2x2 map with padding 1: the add must not refuse the unpadded window.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 2, 2}});
    std::vector<float> const kernel(9, 1.0F);
    IConvolutionLayer* conv = h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, floatWeights(kernel), Weights{});
    ASSERT_NE(conv, nullptr) << h.logger.errors();
    conv->setStrideNd(Dims{2, {2, 2}});
    conv->setPaddingNd(Dims{2, {1, 1}});
    IPoolingLayer* pool = h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {3, 3}});
    ASSERT_NE(pool, nullptr) << h.logger.errors();
    pool->setPaddingNd(Dims{2, {1, 1}});
    h.output(conv, "conv");
    h.output(pool, "pool");
    EXPECT_EQ(conv->getOutput(0)->getDimensions().d[2], 1);
    EXPECT_EQ(pool->getOutput(0)->getDimensions().d[2], 2);
    ASSERT_TRUE(h.build());
    // x = [[1, 2], [3, 4]]: the one 3x3 window of the convolution covers it all (a sum of 10); every 3x3 pooling
    // window with padding 1 covers it all too (a maximum of 4).
    std::vector<float> const input{1, 2, 3, 4};
    std::vector<float> convolved(1, 0.0F);
    std::vector<float> pooled(4, 0.0F);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"conv", convolved.data()}, {"pool", pooled.data()}}));
    EXPECT_EQ(convolved, (std::vector<float>{10}));
    EXPECT_EQ(pooled, (std::vector<float>(4, 4.0F)));
}

TEST(LayerErrors, AWindowBeyondThePaddedInputFailsTheBuildNamingTheLayer)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 4, 4}});
    IPoolingLayer* pool = h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {5, 5}});
    ASSERT_NE(pool, nullptr) << h.logger.errors();
    pool->setName("too wide");
    h.output(pool, "y");
    // Until the build the output is shaped as if the window fitted; a padding could still be set.
    EXPECT_EQ(pool->getOutput(0)->getDimensions().d[2], 1);
    EXPECT_FALSE(h.builder->isNetworkSupported(*h.network, *h.config));
    EXPECT_NE(h.logger.errors().find("isNetworkSupported: layer \"too wide\": the window extent 5 exceeds the padded "
                                     "input extent 4 on spatial axis 0"),
        std::string::npos)
        << h.logger.errors();
    h.expectBuildToFail("layer \"too wide\": the window extent 5 exceeds the padded input extent 4");
}

TEST(LayerErrors, ArgumentsAreCheckedAndNamed)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 2, 4, 4}});
    EXPECT_EQ(h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, Weights{DataType::kFLOAT, nullptr, 18}, Weights{}),
        nullptr);
    EXPECT_NE(h.logger.errors().find("kernel weights have count 18 but null values"), std::string::npos)
        << h.logger.errors();
    std::vector<float> const kernel(17, 1.0F);
    EXPECT_EQ(h.network->addConvolutionNd(*x, 1, Dims{2, {3, 3}}, floatWeights(kernel), Weights{}), nullptr);
    EXPECT_NE(
        h.logger.errors().find("the kernel weights have 17 values; expected 18 for 1 group(s)"), std::string::npos)
        << h.logger.errors();
    EXPECT_EQ(h.network->addConvolutionNd(*x, 0, Dims{2, {3, 3}}, floatWeights(kernel), Weights{}), nullptr);
    EXPECT_NE(h.logger.errors().find("number of output maps (0)"), std::string::npos) << h.logger.errors();
    EXPECT_EQ(h.network->addPoolingNd(*x, PoolingType::kMAX, Dims{2, {0, 2}}), nullptr);
    EXPECT_NE(h.logger.errors().find("the window size entry 0 is 0"), std::string::npos) << h.logger.errors();
    std::vector<float> const threeScales(3, 1.0F);
    EXPECT_EQ(h.network->addScale(*x, ScaleMode::kCHANNEL, Weights{}, floatWeights(threeScales), Weights{}), nullptr);
    EXPECT_NE(h.logger.errors().find("scale has 3 values; expected 0 or 2"), std::string::npos) << h.logger.errors();
    EXPECT_EQ(h.network->addScale(*x, ScaleMode::kUNIFORM, Weights{DataType::kFLOAT, nullptr, 1}, Weights{}, Weights{}),
        nullptr);
    EXPECT_NE(h.logger.errors().find("shift weights have count 1 but null values"), std::string::npos);
    EXPECT_EQ(h.network->addConstant(Dims{1, {4}}, floatWeights(threeScales)), nullptr);
    EXPECT_NE(h.logger.errors().find("weights count 3 does not match the volume 4"), std::string::npos);
    EXPECT_EQ(h.network->addConcatenation(nullptr, 0), nullptr);
    EXPECT_NE(h.logger.errors().find("addConcatenation: needs at least one input"), std::string::npos);
    ITensor* y = h.network->addInput("y", DataType::kFLOAT, Dims{2, {2, 3}});
    EXPECT_EQ(h.network->addMatrixMultiply(*y, MatrixOperation::kNONE, *y, MatrixOperation::kNONE), nullptr);
    EXPECT_NE(h.logger.errors().find("the reduced dimensions differ: 3 vs 2"), std::string::npos);
    IShuffleLayer* shuffle = h.network->addShuffle(*y);
    ASSERT_NE(shuffle, nullptr);
    EXPECT_EQ(shuffle->getReshapeDimensions().nbDims, -1);
    ISoftMaxLayer* softmax = h.network->addSoftMax(*y);
    ASSERT_NE(softmax, nullptr);
    EXPECT_EQ(softmax->getAxes(), 1U); // rank 2: axis 0
    ITensor* image = h.network->addInput("image", DataType::kFLOAT, Dims{4, {1, 3, 2, 2}});
    EXPECT_EQ(h.network->addSoftMax(*image)->getAxes(), 1U << 1); // rank 4: axis rank - 3 = 1, the C of NCHW
    ITensor* bytes = h.network->addInput("bytes", DataType::kUINT8, Dims{1, {4}});
    EXPECT_EQ(h.network->addElementWise(*bytes, *bytes, ElementWiseOperation::kSUM), nullptr);
    EXPECT_NE(
        h.logger.errors().find("element-wise operations do not take UINT8 inputs; cast them first"), std::string::npos);
}

} // namespace
