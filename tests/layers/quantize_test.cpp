// IQuantizeLayer and IDequantizeLayer end to end on the CPU backend, against values worked out by hand from ONNX's
// QuantizeLinear and DequantizeLinear: INT8 rounding half to even and saturation, FP8 E4M3FN rounding (ties to even,
// subnormals), saturation to +-448 and NaN, exact FP8 decoding, per-channel scales, zero points, INT8 and FP8 tensors
// flowing through data-movement layers, precision (FP16 and strongly typed), the plan's fields, the setters and each
// refusal.
#include "expect_close.h"
#include "round_trip.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

float const kNaN = std::numeric_limits<float>::quiet_NaN();
float const kInfinity = std::numeric_limits<float>::infinity();

Dims vectorDims(int64_t count)
{
    return Dims{1, {count}};
}

//! A 0-D FLOAT constant.
ITensor* scalar(LayerHarness& h, float const& value)
{
    return h.network->addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
}

//! x quantized per tensor with `scale` into `type`, through a built and reloaded plan: the output's bytes.
std::vector<uint8_t> quantizeVector(std::vector<float> const& x, float scale, DataType type)
{
    LayerHarness h;
    ITensor* input = h.network->addInput("x", DataType::kFLOAT, vectorDims(static_cast<int64_t>(x.size())));
    IQuantizeLayer* q = h.network->addQuantize(*input, *scalar(h, scale), type);
    EXPECT_NE(q, nullptr) << h.logger.errors();
    if (q == nullptr)
    {
        return {};
    }
    h.output(q, "q");
    if (!h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.engine->getTensorDataType("q"), type);
    std::vector<uint8_t> out(x.size());
    h.run({{"x", x.data()}}, {{"q", out.data()}});
    return out;
}

//! Quantized bytes of `type` dequantized per tensor with `scale` into FLOAT.
std::vector<float> dequantizeVector(std::vector<uint8_t> const& q, float scale, DataType type)
{
    LayerHarness h;
    ITensor* input = h.network->addInput("q", type, vectorDims(static_cast<int64_t>(q.size())));
    IDequantizeLayer* dq = h.network->addDequantize(*input, *scalar(h, scale), DataType::kFLOAT);
    EXPECT_NE(dq, nullptr) << h.logger.errors();
    if (dq == nullptr)
    {
        return {};
    }
    h.output(dq, "x");
    if (!h.build())
    {
        return {};
    }
    std::vector<float> out(q.size());
    h.run({{"q", q.data()}}, {{"x", out.data()}});
    return out;
}

std::vector<uint8_t> int8Bytes(std::vector<int32_t> const& values)
{
    std::vector<uint8_t> bytes;
    for (int32_t v : values)
    {
        bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
    }
    return bytes;
}

TEST(QuantizeLayer, Int8RoundsHalfToEvenAndSaturates)
{
    // x / 2: 0, 0.5, 1.5, 2.5, -1.5, -2.5, 127.5, 128, -128.5, -150, 500, NaN, inf, -inf.
    std::vector<float> const x{0, 1, 3, 5, -3, -5, 255, 256, -257, -300, 1000, kNaN, kInfinity, -kInfinity};
    EXPECT_EQ(quantizeVector(x, 2.0F, DataType::kINT8),
        int8Bytes({0, 0, 2, 2, -2, -2, 127, 127, -128, -128, 127, 0, 127, -128}));
}

TEST(QuantizeLayer, Fp8RoundsToNearestEvenSaturatesAndKeepsNaN)
{
    std::vector<float> const x{0.0F, -0.0F, 1.0F, -2.0F, 240.0F,
        1.0625F, // halfway between 1 (0x38) and 1.125 (0x39): to the even 0x38
        1.1875F, // halfway between 1.125 (0x39) and 1.25 (0x3A): to the even 0x3A
        448.0F, 460.0F, 464.0F, 1e9F, kInfinity, -kInfinity, kNaN,
        0.001953125F,  // 2^-9, the smallest subnormal
        0.0029296875F, // 1.5 * 2^-9: to the even 2 * 2^-9
        0.0009765625F, // 2^-10, half the smallest subnormal: to the even 0
        0.0146484375F, // 7.5 * 2^-9: to 8 * 2^-9 = 2^-6, the smallest normal (0x08)
        1e-30F};
    std::vector<uint8_t> const expected{0x00, 0x80, 0x38, 0xC0, 0x77, 0x38, 0x3A, 0x7E, 0x7E, 0x7E, 0x7E, 0x7E, 0xFE,
        0x7F, 0x01, 0x02, 0x00, 0x08, 0x00};
    EXPECT_EQ(quantizeVector(x, 1.0F, DataType::kFP8), expected);
    // The scale divides first: 3 / 4 = 0.75 = 1.5 * 2^-1 (exponent 6, mantissa 4).
    EXPECT_EQ(quantizeVector({3.0F}, 4.0F, DataType::kFP8), std::vector<uint8_t>{0x34});
}

TEST(DequantizeLayer, Int8IsExact)
{
    expectClose(dequantizeVector(int8Bytes({-128, -1, 0, 1, 127}), 0.5F, DataType::kINT8),
        {-64.0F, -0.5F, 0.0F, 0.5F, 63.5F}, 0.0F);
}

TEST(DequantizeLayer, Fp8DecodesEveryClassExactly)
{
    std::vector<uint8_t> const bits{0x00, 0x01, 0x07, 0x08, 0x38, 0x3A, 0x7E, 0xFE, 0x80, 0x7F, 0xFF};
    std::vector<float> const x = dequantizeVector(bits, 2.0F, DataType::kFP8);
    ASSERT_EQ(x.size(), bits.size());
    // 2 * (0, 2^-9, 7 * 2^-9, 2^-6, 1, 1.25, 448, -448, -0).
    std::vector<float> const expected{0, 0.00390625F, 0.02734375F, 0.03125F, 2, 2.5F, 896, -896, -0.0F};
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(x[i], expected[i]) << "bits " << int(bits[i]);
    }
    EXPECT_TRUE(std::signbit(x[8]));
    EXPECT_TRUE(std::isnan(x[9]));
    EXPECT_TRUE(std::isnan(x[10]));
}

//! [2, 3, 2] data quantized along axis 1 with scales {1, 2, 4} into INT8, then dequantized with the same scales.
TEST(QuantizeLayer, PerChannelScalesFollowTheAxis)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 2}});
    std::vector<float> const scales{1, 2, 4};
    ITensor* scale = h.network->addConstant(vectorDims(3), kiln::test::floatWeights(scales))->getOutput(0);
    IQuantizeLayer* q = h.network->addQuantize(*x, *scale, DataType::kINT8);
    ASSERT_NE(q, nullptr) << h.logger.errors();
    q->setAxis(1);
    EXPECT_EQ(q->getAxis(), 1);
    h.output(q, "q");
    IDequantizeLayer* dq = h.network->addDequantize(*q->getOutput(0), *scale, DataType::kFLOAT);
    ASSERT_NE(dq, nullptr) << h.logger.errors();
    dq->setAxis(1);
    h.output(dq, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    // Batch 0 then batch 1; each pair is one channel.
    std::vector<float> const input{3, 5, 3, 5, 6, 10, -3, 300, -3, -300, -6, 1000};
    std::vector<int8_t> q8(12);
    std::vector<float> y(12);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"q", q8.data()}, {"y", y.data()}}));
    // Channel 0 / 1, channel 1 / 2 (1.5 -> 2, 2.5 -> 2), channel 2 / 4 (1.5 -> 2, 2.5 -> 2).
    EXPECT_EQ(q8, (std::vector<int8_t>{3, 5, 2, 2, 2, 2, -3, 127, -2, -128, -2, 127}));
    expectClose(y, {3, 5, 4, 4, 8, 8, -3, 127, -4, -256, -8, 508}, 0.0F);
}

TEST(QuantizeLayer, ZeroPointsFollowOnnxsFormula)
{
    // TensorRT takes only zeros; Kiln's kernels compute ONNX's formula with any, so that Q/DQ layers added by hand
    // give ONNX's result: q = saturate(round(x / 2) + 10), then (q - 10) * 2.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, vectorDims(3));
    int8_t const zero = 10;
    ITensor* zeroPoint = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT8, &zero, 1})->getOutput(0);
    ITensor* scale = scalar(h, 2.0F);
    IQuantizeLayer* q = h.network->addQuantize(*x, *scale, DataType::kINT8);
    ASSERT_NE(q, nullptr);
    q->setInput(2, *zeroPoint);
    IDequantizeLayer* dq = h.network->addDequantize(*q->getOutput(0), *scale, DataType::kFLOAT);
    ASSERT_NE(dq, nullptr);
    dq->setInput(2, *zeroPoint);
    h.output(q, "q");
    h.output(dq, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{3, 250, -300};
    std::vector<int8_t> q8(3);
    std::vector<float> y(3);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"q", q8.data()}, {"y", y.data()}}));
    EXPECT_EQ(q8, (std::vector<int8_t>{12, 127, -128}));
    expectClose(y, {4, 234, -276}, 0.0F);
}

//! Q, then the data-movement layers a Model Optimizer graph puts between Q and DQ, then DQ: quantized tensors of
//! `type` flow through a transpose, a reshape, a slice, an identity and a concatenation.
void expectQuantizedDataMoves(DataType type)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* scale = scalar(h, 0.5F);
    IQuantizeLayer* q = h.network->addQuantize(*x, *scale, type);
    ASSERT_NE(q, nullptr) << h.logger.errors();
    IShuffleLayer* transpose = h.network->addShuffle(*q->getOutput(0));
    transpose->setFirstTranspose(Permutation{{1, 0}});
    transpose->setReshapeDimensions(Dims{1, {6}});
    ISliceLayer* slice = h.network->addSlice(*transpose->getOutput(0), Dims{1, {1}}, Dims{1, {4}}, Dims{1, {1}});
    IIdentityLayer* identity = h.network->addIdentity(*slice->getOutput(0));
    ITensor* both[] = {identity->getOutput(0), transpose->getOutput(0)};
    IConcatenationLayer* concat = h.network->addConcatenation(both, 2);
    concat->setAxis(0);
    EXPECT_EQ(concat->getOutput(0)->getType(), type);
    IDequantizeLayer* dq = h.network->addDequantize(*concat->getOutput(0), *scale, DataType::kFLOAT);
    ASSERT_NE(dq, nullptr) << h.logger.errors();
    h.output(dq, "y");
    ASSERT_TRUE(h.build());
    // Multiples of 0.5 within both types' exact range come back unchanged.
    std::vector<float> const input{1, 2, 3, -4, 5.5F, -6};
    std::vector<float> y(10);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    // Transposed: 1, -4, 2, 5.5, 3, -6; the slice keeps elements 1 to 4.
    expectClose(y, {-4, 2, 5.5F, 3, 1, -4, 2, 5.5F, 3, -6}, 0.0F);
}

TEST(QuantizeLayer, Int8TensorsFlowThroughDataMovement)
{
    expectQuantizedDataMoves(DataType::kINT8);
}

TEST(QuantizeLayer, Fp8TensorsFlowThroughDataMovement)
{
    expectQuantizedDataMoves(DataType::kFP8);
}

TEST(QuantizeLayer, ReadsHalfDataAtFp16Precision)
{
    // With kFP16 the quantize layer reads its data in half (the scale keeps its type): 1.2502 becomes 1.25 in half,
    // so x / 0.5 is the tie 2.5, which rounds to 2 (FP32 would give 2.5004 and 3); -1000.5 saturates.
    LayerHarness h;
    h.config->setFlag(BuilderFlag::kFP16);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, vectorDims(2));
    ITensor* scale = scalar(h, 0.5F);
    IQuantizeLayer* q = h.network->addQuantize(*x, *scale, DataType::kINT8);
    IDequantizeLayer* dq = h.network->addDequantize(*q->getOutput(0), *scale, DataType::kFLOAT);
    h.output(dq, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{1.2502F, -1000.5F};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {1.0F, -64.0F}, 0.0F);
}

TEST(DequantizeLayer, StronglyTypedNetworksKeepItsType)
{
    LayerHarness h;
    h.network.reset(
        h.builder->createNetworkV2(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)));
    ITensor* q = h.network->addInput("q", DataType::kINT8, vectorDims(2));
    IDequantizeLayer* dq = h.network->addDequantize(*q, *scalar(h, 0.25F), DataType::kHALF);
    ASSERT_NE(dq, nullptr) << h.logger.errors();
    EXPECT_EQ(dq->getToType(), DataType::kHALF);
    EXPECT_EQ(dq->getOutput(0)->getType(), DataType::kHALF);
    IActivationLayer* relu = h.network->addActivation(*dq->getOutput(0), ActivationType::kRELU);
    EXPECT_EQ(relu->getOutput(0)->getType(), DataType::kHALF);
    h.output(relu, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(h.engine->getTensorDataType("y"), DataType::kHALF);
    std::vector<int8_t> const input{-6, 9};
    std::vector<uint16_t> y(2);
    ASSERT_TRUE(h.run({{"q", input.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<uint16_t>{0x0000, 0x4080})); // 0 and 2.25 in half
}

TEST(QuantizeLayer, DefaultsAndSetters)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, vectorDims(4));
    IQuantizeLayer* q = h.network->addQuantize(*x, *scalar(h, 1.0F));
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->getType(), LayerType::kQUANTIZE);
    EXPECT_EQ(q->getToType(), DataType::kINT8); // the two-argument form's type
    EXPECT_EQ(q->getAxis(), -1);
    EXPECT_EQ(q->getBlockShape().nbDims, 0);
    EXPECT_TRUE(q->setBlockShape(Dims{0, {}}));
    EXPECT_FALSE(q->setBlockShape(Dims{1, {2}}));
    EXPECT_TRUE(errorMentions(h, "no block quantization"));
    q->setToType(DataType::kFP8);
    EXPECT_EQ(q->getOutput(0)->getType(), DataType::kFP8);
    IDequantizeLayer* dq = h.network->addDequantize(*q->getOutput(0), *scalar(h, 1.0F));
    ASSERT_NE(dq, nullptr);
    EXPECT_EQ(dq->getType(), LayerType::kDEQUANTIZE);
    EXPECT_EQ(dq->getToType(), DataType::kFLOAT);
    EXPECT_EQ(dq->getOutput(0)->getType(), DataType::kFLOAT);
}

TEST(QuantizeLayer, RefusesWhatItCannotTake)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* one = scalar(h, 1.0F);
    EXPECT_EQ(h.network->addQuantize(*x, *one, DataType::kHALF), nullptr);
    EXPECT_TRUE(errorMentions(h, "HALF is not a quantized type (INT8 or FP8)"));
    EXPECT_EQ(h.network->addQuantize(*x, *one, DataType::kINT4), nullptr);
    EXPECT_TRUE(errorMentions(h, "INT4 is not supported"));
    EXPECT_EQ(h.network->addDequantize(*x, *one, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(errorMentions(h, "the input (input 0): FLOAT is not a quantized type"));
    ITensor* q = h.network->addInput("q", DataType::kINT8, Dims{2, {2, 3}});
    EXPECT_EQ(h.network->addDequantize(*q, *one, DataType::kINT32), nullptr);
    EXPECT_TRUE(errorMentions(h, "the output type must be FLOAT, HALF or BF16, not INT32"));
    EXPECT_EQ(h.network->addDequantize(*q, *q, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(errorMentions(h, "the scale (input 1) must be FLOAT, HALF or BF16"));
}

TEST(QuantizeLayer, PerChannelScalesNeedTheirAxis)
{
    std::vector<float> const scales{1, 2};
    for (int32_t axis : {-1, 2, 1})
    {
        SCOPED_TRACE(axis);
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
        ITensor* scale = h.network->addConstant(vectorDims(2), kiln::test::floatWeights(scales))->getOutput(0);
        IQuantizeLayer* q = h.network->addQuantize(*x, *scale, DataType::kINT8);
        ASSERT_NE(q, nullptr) << h.logger.errors(); // the axis comes after: checked when building
        q->setAxis(axis);
        h.output(q, "q");
        h.expectBuildToFail(axis == 1 ? "the scale (input 1) holds 2 coefficients, but the input's axis 1 has extent 3"
                                      : "is not an axis of the rank-2 input");
    }
}

TEST(QuantizeLayer, ZeroPointMustHaveTheQuantizedTypeAndTheScalesShape)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, vectorDims(2));
    IQuantizeLayer* q = h.network->addQuantize(*x, *scalar(h, 1.0F), DataType::kFP8);
    ASSERT_NE(q, nullptr);
    int8_t const zeros[2] = {0, 0};
    q->setInput(2, *h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT8, zeros, 1})->getOutput(0));
    h.output(q, "q");
    h.expectBuildToFail("the zero point (input 2) must have the quantized type FP8, not INT8");

    LayerHarness g;
    ITensor* y = g.network->addInput("x", DataType::kFLOAT, vectorDims(2));
    IQuantizeLayer* q2 = g.network->addQuantize(*y, *scalar(g, 1.0F), DataType::kINT8);
    q2->setInput(2, *g.network->addConstant(vectorDims(2), Weights{DataType::kINT8, zeros, 2})->getOutput(0));
    g.output(q2, "q");
    g.expectBuildToFail("the zero point (input 2) must have the scale's shape");
}

} // namespace
