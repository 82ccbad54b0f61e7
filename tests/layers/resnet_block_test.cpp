// A ResNet-style block through every main layer kind, against a straightforward reference computed here:
// conv -> scale -> relu -> conv -> add(input) -> max pool -> flatten -> matmul(constant) -> softmax.
#include "expect_close.h"
#include "layer_harness.h"

#include <algorithm>
#include <cmath>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

constexpr int kC = 2;
constexpr int kH = 4;
constexpr int kW = 4;
constexpr int kClasses = 3;

using Image = std::vector<float>; // [C][H][W]

float at(Image const& image, int c, int y, int x)
{
    return (y < 0 || y >= kH || x < 0 || x >= kW) ? 0.0F : image[(c * kH + y) * kW + x];
}

//! 3x3 convolution, padding 1, stride 1, kC -> kC maps, weights [K][C][3][3].
Image referenceConv(Image const& in, std::vector<float> const& w, std::vector<float> const& bias)
{
    Image out(kC * kH * kW);
    for (int k = 0; k < kC; ++k)
    {
        for (int y = 0; y < kH; ++y)
        {
            for (int x = 0; x < kW; ++x)
            {
                double sum = bias[k];
                for (int c = 0; c < kC; ++c)
                {
                    for (int dy = 0; dy < 3; ++dy)
                    {
                        for (int dx = 0; dx < 3; ++dx)
                        {
                            sum += w[((k * kC + c) * 3 + dy) * 3 + dx] * at(in, c, y + dy - 1, x + dx - 1);
                        }
                    }
                }
                out[(k * kH + y) * kW + x] = static_cast<float>(sum);
            }
        }
    }
    return out;
}

std::vector<float> patterned(size_t count, float scale, int modulus)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = scale * static_cast<float>(static_cast<int>(i * 7 % modulus) - modulus / 2);
    }
    return values;
}

TEST(ResNetBlock, MatchesTheReference)
{
    std::vector<float> const w1 = patterned(kC * kC * 9, 0.1F, 11);
    std::vector<float> const b1{0.2F, -0.1F};
    std::vector<float> const bnScale{1.5F, 0.5F};
    std::vector<float> const bnShift{-0.3F, 0.4F};
    std::vector<float> const w2 = patterned(kC * kC * 9, 0.05F, 13);
    std::vector<float> const b2{0.0F, 0.1F};
    std::vector<float> const fc = patterned(kC * 2 * 2 * kClasses, 0.2F, 5); // [8][3]
    Image const input = patterned(kC * kH * kW, 0.25F, 9);

    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, kC, kH, kW}});
    IConvolutionLayer* conv1 = h.network->addConvolutionNd(*x, kC, Dims{2, {3, 3}}, floatWeights(w1), floatWeights(b1));
    ASSERT_NE(conv1, nullptr) << h.logger.errors();
    conv1->setPaddingNd(Dims{2, {1, 1}});
    IScaleLayer* bn = h.network->addScale(
        *conv1->getOutput(0), ScaleMode::kCHANNEL, floatWeights(bnShift), floatWeights(bnScale), Weights{});
    ASSERT_NE(bn, nullptr) << h.logger.errors();
    IActivationLayer* relu = h.network->addActivation(*bn->getOutput(0), ActivationType::kRELU);
    IConvolutionLayer* conv2
        = h.network->addConvolutionNd(*relu->getOutput(0), kC, Dims{2, {3, 3}}, floatWeights(w2), floatWeights(b2));
    ASSERT_NE(conv2, nullptr) << h.logger.errors();
    conv2->setPaddingMode(PaddingMode::kSAME_UPPER);
    IElementWiseLayer* add = h.network->addElementWise(*conv2->getOutput(0), *x, ElementWiseOperation::kSUM);
    IPoolingLayer* pool = h.network->addPoolingNd(*add->getOutput(0), PoolingType::kMAX, Dims{2, {2, 2}});
    pool->setStrideNd(Dims{2, {2, 2}});
    IShuffleLayer* flatten = h.network->addShuffle(*pool->getOutput(0));
    flatten->setReshapeDimensions(Dims{2, {0, -1}});
    IConstantLayer* weights = h.network->addConstant(Dims{2, {kC * 4, kClasses}}, floatWeights(fc));
    IMatrixMultiplyLayer* logits = h.network->addMatrixMultiply(
        *flatten->getOutput(0), MatrixOperation::kNONE, *weights->getOutput(0), MatrixOperation::kNONE);
    ASSERT_NE(logits, nullptr) << h.logger.errors();
    ISoftMaxLayer* softmax = h.network->addSoftMax(*logits->getOutput(0));
    softmax->setAxes(1U << 1);
    h.output(softmax, "probabilities");
    ASSERT_TRUE(h.build());
    std::vector<float> actual(kClasses);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"probabilities", actual.data()}}));

    Image hidden = referenceConv(input, w1, b1);
    for (size_t i = 0; i < hidden.size(); ++i)
    {
        int const c = static_cast<int>(i) / (kH * kW);
        hidden[i] = std::max(0.0F, hidden[i] * bnScale[c] + bnShift[c]);
    }
    Image residual = referenceConv(hidden, w2, b2);
    for (size_t i = 0; i < residual.size(); ++i)
    {
        residual[i] += input[i];
    }
    std::vector<float> pooled; // [C][2][2] flattened
    for (int c = 0; c < kC; ++c)
    {
        for (int y = 0; y < kH; y += 2)
        {
            for (int xx = 0; xx < kW; xx += 2)
            {
                pooled.push_back(std::max({at(residual, c, y, xx), at(residual, c, y, xx + 1),
                    at(residual, c, y + 1, xx), at(residual, c, y + 1, xx + 1)}));
            }
        }
    }
    std::vector<double> expected(kClasses, 0.0);
    for (int j = 0; j < kClasses; ++j)
    {
        for (size_t i = 0; i < pooled.size(); ++i)
        {
            expected[j] += pooled[i] * fc[i * kClasses + j];
        }
    }
    double const peak = *std::max_element(expected.begin(), expected.end());
    double total = 0.0;
    for (double& value : expected)
    {
        value = std::exp(value - peak);
        total += value;
    }
    for (double& value : expected)
    {
        value /= total;
    }
    expectClose(std::vector<double>(actual.begin(), actual.end()), expected, 1e-5, "class probabilities");
}

} // namespace
