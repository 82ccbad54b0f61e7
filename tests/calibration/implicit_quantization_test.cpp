// Implicit quantization: with kINT8, layers whose inputs have dynamic ranges compute as if Q/DQ pairs of scale
// range / 127 stood on their inputs and their weights were quantized per output channel (s_c = max|W_c| / 127).
// Expected values come from numpy (float32), computing the same quantization independently:
//   q(x, s) = clip(rint(x / s), -128, 127) * s;  wq(W) = rint(W / s_c) * s_c per output channel;  then the layer.
#include "expect_close.h"
#include "layer_harness.h"

#include "builder/implicit_quantization.h"

#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;

std::vector<float> const kX{0.3F, -1.2F, 2.5F, 1.9F, 0.05F, -0.7F};
std::vector<float> const kW{0.5F, -0.25F, 1.0F, 0.3F, -0.75F, 0.1F};

//! X [2, 3] times the constant W [3, 2]; X's range is [-2, 2] where `ranged`.
std::vector<float> runMatrixMultiply(bool int8, bool ranged, bool fp16 = false)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* w = h.network->addConstant(Dims{2, {3, 2}}, floatWeights(kW))->getOutput(0);
    h.output(h.network->addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE), "y");
    if (ranged)
    {
        EXPECT_TRUE(x->setDynamicRange(-2.0F, 2.0F));
    }
    if (int8)
    {
        h.config->setFlag(BuilderFlag::kINT8);
    }
    if (fp16)
    {
        h.config->setFlag(BuilderFlag::kFP16);
    }
    std::vector<float> y(4, 0.0F);
    if (h.build())
    {
        h.run({{"x", kX.data()}}, {{"y", y.data()}});
    }
    return y;
}

TEST(ImplicitQuantization, MatrixMultiplyReadsQuantizedInputsAndWeights)
{
    // numpy: s_x = 2 / 127 (2.5 saturates to 127), W's columns s_0 = 1 / 127, s_1 = 0.3 / 127.
    expectClose(runMatrixMultiply(true, true), {-2.5421290F, -0.23555088F, 1.5258231F, -0.53170067F}, 1e-6F);
}

TEST(ImplicitQuantization, Fp16PlansQuantizeInHalfPrecision)
{
    // The pairs read and write the tensors' FP16 type and the weights are stored in FP16: the same values to FP16's
    // precision (the quantized weights, q * s_c, rounded once into FP16).
    expectClose(runMatrixMultiply(true, true, true), {-2.5421290F, -0.23555088F, 1.5258231F, -0.53170067F}, 5e-3F);
}

TEST(ImplicitQuantization, RangesWithoutInt8AndInt8WithoutRangesComputeInFloat)
{
    std::vector<float> const fp32{-2.925F, -0.185F, 1.525F, -0.53F};
    expectClose(runMatrixMultiply(false, true), fp32, 1e-6F);
    expectClose(runMatrixMultiply(true, false), fp32, 1e-6F);
}

TEST(ImplicitQuantization, ConvolutionQuantizesItsInputAndKernelPerOutputMap)
{
    LayerHarness h;
    ITensor* input = h.network->addInput("in", DataType::kFLOAT, Dims{4, {1, 1, 3, 3}});
    std::vector<float> const kernel{0.6F, -0.2F, 0.35F, 0.9F, -0.45F, 0.15F, 0.7F, -0.05F};
    std::vector<float> const bias{0.1F, -0.2F};
    IConvolutionLayer* conv
        = h.network->addConvolutionNd(*input, 2, Dims{2, {2, 2}}, floatWeights(kernel), floatWeights(bias));
    h.output(conv, "out");
    input->setDynamicRange(-1.0F, 1.5F); // symmetric: the range is 1.5
    conv->getOutput(0)->setDynamicRange(-4.0F, 4.0F);
    h.config->setFlag(BuilderFlag::kINT8);
    ASSERT_TRUE(h.build());
    std::vector<float> const in{0.2F, -0.9F, 1.7F, 0.4F, 1.1F, -0.3F, 0.8F, -1.6F, 0.05F};
    std::vector<float> out(8, 0.0F);
    h.run({{"in", in.data()}}, {{"out", out.data()}});
    expectClose(out,
        {1.5270878F, -0.62266731F, -0.95780271F, 0.33779219F, -0.19772150F, 1.2124774F, 0.41916731F, -1.8010074F},
        1e-6F);
}

TEST(ImplicitQuantization, RefusesDynamicRangesInAQdqNetwork)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    float const scale = 0.5F;
    ITensor* s = h.network->addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &scale, 1})->getOutput(0);
    IQuantizeLayer* q = h.network->addQuantize(*x, *s, DataType::kINT8);
    h.output(h.network->addDequantize(*q->getOutput(0), *s, DataType::kFLOAT), "y");
    x->setDynamicRange(-1.0F, 1.0F);
    h.config->setFlag(BuilderFlag::kINT8);
    h.expectBuildToFail("has quantize/dequantize layers (explicit quantization) and tensor \"x\" has a dynamic range");
}

TEST(ImplicitQuantization, WeightsPerChannelAreExactMultiplesOfTheirScale)
{
    // Channels along the last axis (stride 1) of a [2, 2] matrix: column 0 {1, -0.6}, column 1 {0.3, 0.2}.
    std::vector<float> const q = kiln::builder::quantizeWeightsPerChannel({1.0F, 0.3F, -0.6F, 0.2F}, 2, 1);
    float const s0 = 1.0F / 127.0F;
    float const s1 = 0.3F / 127.0F;
    EXPECT_EQ(q[0], 127.0F * s0);
    EXPECT_EQ(q[1], 127.0F * s1);
    EXPECT_EQ(q[2], -76.0F * s0); // -76.2
    EXPECT_EQ(q[3], 85.0F * s1);  // 0.2 / (0.3 / 127) = 84.67
    // Channels in consecutive blocks (a kernel's output maps), and a channel of zeros.
    std::vector<float> const blocks = kiln::builder::quantizeWeightsPerChannel({0.0F, 0.0F, 2.0F, -1.1F}, 2, 2);
    EXPECT_EQ(blocks, (std::vector<float>{0.0F, 0.0F, 127.0F * (2.0F / 127.0F), -70.0F * (2.0F / 127.0F)}));
}

} // namespace
