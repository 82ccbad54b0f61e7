// The quantized fusions (plan/passes/quantized_fusion.h, quantized_matrix_multiply_fusion.h) in FP16 builds, where the
// layers between the Q/DQ pairs compute in FP16: the chains fuse as in FP32 builds, the convolution's FP16 weights
// give their INT8 values and scales back (plan/passes/int8_weights.h), and a fused layer that writes floating point
// writes FP32 that the next FP16 layer reads converted.
//
// Tolerance: the fused layer computes on the exact INT8 values and scales in FP32, where the FP16 reference rounds
// every layer's output to FP16 (a relative 2^-11). A quantized output may then take the neighbouring INT8 step (and
// its dequantization is rounded to FP16 too); a floating-point one differs by a few FP16 roundings.
#include "qdq_builder.h"

#include "device_common/half.h"
#include "network/fused/quantized_convolution.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "plan/passes/int8_weights.h"

namespace kiln::test
{
namespace
{

using network::kQuantizedConvolutionLayerType;
using network::kQuantizedMatrixMultiplyLayerType;

void fp16(IBuilder& /*builder*/, IBuilderConfig& config)
{
    config.setFlag(BuilderFlag::kFP16);
    config.setFlag(BuilderFlag::kINT8);
}

//! DQ -> 3x3 convolution (8 maps, weights INT8 values times one scale per map) -> ReLU, then `after`.
Network convolutionChain(std::function<ITensor&(Builder&, ITensor&)> after)
{
    return Network{[after](Builder& b) {
                       ITensor& x = b.pair(b.input("a", {2, 4, 6, 6}), {kScale}, "input");
                       markOutput(b.network(), after(b, b.convolution(x, 8)));
                   },
        {{2, 4, 6, 6}}};
}

//! Builds the FP16 plans for both kernel sets and compares them; returns the fast plan.
plan::PlanModel expectFp16FastMatchesReference(Network const& network, Tolerance tolerance)
{
    std::vector<Tensors> const runs{randomInputs(network.inputs, 5), randomInputs(network.inputs, 17, 3.0F)};
    expectFastMatchesReference(network.maker(), runs, tolerance, fp16);
    return readModel(buildCpuPlan(network.maker(), CpuKernels::kFAST, fp16));
}

TEST(QuantizedFp16Fusion, FusesAConvolutionChainEndingInAQuantization)
{
    Network const network = convolutionChain([](Builder& b, ITensor& y) -> ITensor& {
        return b.pair(activated(b.network(), y, ActivationType::kRELU, "relu"), {kOutputScale}, "output");
    });
    plan::PlanModel const fast = expectFp16FastMatchesReference(network, Tolerance(kOutputScale * 1.001, 2e-3));
    EXPECT_EQ(layerNamed(fast, "dq input + convolution + relu + q output").type, kQuantizedConvolutionLayerType);
    EXPECT_EQ(countOf(fast, LayerType::kCONVOLUTION), 0U);
}

TEST(QuantizedFp16Fusion, AFusedConvolutionWritesFp32ThatTheNextFp16LayerReadsConverted)
{
    Network const network = convolutionChain([](Builder& b, ITensor& y) -> ITensor& {
        return activated(
            b.network(), activated(b.network(), y, ActivationType::kRELU, "relu"), ActivationType::kSIGMOID, "sigmoid");
    });
    plan::PlanModel const fast = expectFp16FastMatchesReference(network, Tolerance(2e-3, 2e-3));
    plan::LayerRecord const& fused = layerNamed(fast, "dq input + convolution + relu");
    EXPECT_EQ(fused.type, kQuantizedConvolutionLayerType);
    EXPECT_EQ(fast.tensors[fused.outputs[0]].type, DataType::kFLOAT);
    plan::LayerRecord const& sigmoid = layerNamed(fast, "sigmoid");
    EXPECT_EQ(sigmoid.inputs[0], fused.outputs[0]);
    EXPECT_EQ(plan::slotType(fast, sigmoid, 0), DataType::kHALF);
    EXPECT_EQ(sigmoid.precision, DataType::kHALF);
}

TEST(QuantizedFp16Fusion, FusesAProductByWeightsWithItsBiasAndQuantization)
{
    Network const network{[](Builder& b) {
                              ITensor& x = b.pair(b.input("a", {2, 6, 8}), {kScale}, "input");
                              markOutput(b.network(), b.pair(b.linear(x, 8, 5), {kOutputScale}, "output"));
                          },
        {{2, 6, 8}}};
    plan::PlanModel const fast = expectFp16FastMatchesReference(network, Tolerance(kOutputScale * 1.001, 2e-3));
    EXPECT_EQ(layerNamed(fast, "dq input + product + bias sum + q output").type, kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(fast, LayerType::kMATRIX_MULTIPLY), 0U);
}

//! `network` built strongly typed for `kernels`, serialized.
std::vector<uint8_t> stronglyTypedPlan(Network const& network, CpuKernels kernels)
{
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    auto const flags = 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED);
    std::unique_ptr<INetworkDefinition> definition(builder->createNetworkV2(flags));
    network.maker()(*definition);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    setBackend(*config, Backend::kCPU);
    setCpuKernels(*config, kernels);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*definition, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    auto const* bytes = plan ? static_cast<uint8_t const*>(plan->data()) : nullptr;
    return plan ? std::vector<uint8_t>(bytes, bytes + plan->size()) : std::vector<uint8_t>{};
}

TEST(QuantizedFp16Fusion, FusesAStronglyTypedChainWhoseDequantizationWritesHalf)
{
    Network const network{[](Builder& b) {
                              ITensor& x = b.pair(b.input("a", {2, 4, 6, 6}), {kScale}, "input", 0, DataType::kHALF);
                              ITensor& y = activated(b.network(), b.convolution(x, 8), ActivationType::kRELU, "relu");
                              markOutput(b.network(), b.pair(y, {kOutputScale}, "output"));
                          },
        {{2, 4, 6, 6}}};
    std::vector<uint8_t> const fast = stronglyTypedPlan(network, CpuKernels::kFAST);
    plan::PlanModel const model = readModel(fast);
    EXPECT_EQ(layerNamed(model, "dq input + convolution + relu + q output").type, kQuantizedConvolutionLayerType);
    std::vector<Tensors> const runs{randomInputs(network.inputs, 5)};
    std::vector<Tensors> const fused = runCpuPlan(fast, runs);
    std::vector<Tensors> const reference = runCpuPlan(stronglyTypedPlan(network, CpuKernels::kREFERENCE), runs);
    ASSERT_EQ(fused.size(), 1U);
    ASSERT_EQ(reference.size(), 1U);
    expectClose(fused[0].at("output"), reference[0].at("output"), Tolerance(kOutputScale * 1.001, 2e-3), "output");
}

TEST(Int8Weights, RecoversValuesAndScalesFromFp16Weights)
{
    // One channel of a convolution that computes in FP16: each weight is q * s rounded to FP16. The largest magnitude
    // over 127 (FP32's recovery) is within FP16's rounding of s, too far for -98 steps of it to round back alike;
    // the bounds each weight sets on the scale give one that does (a channel of Model Optimizer's EfficientNet).
    float const scale = 0.0042986188F;
    std::vector<int8_t> const q{127, -98, 70, 1, 0, -3};
    std::vector<float> weights;
    for (int8_t value : q)
    {
        weights.push_back(roundThroughHalf(dequantizeInt8(value, scale)));
    }
    std::optional<plan::Int8Weights> const recovered = plan::recoverInt8Weights(weights, 1, DataType::kHALF);
    ASSERT_TRUE(recovered.has_value());
    EXPECT_EQ(recovered->values, q);
    for (size_t i = 0; i < q.size(); ++i)
    {
        EXPECT_EQ(roundThroughHalf(dequantizeInt8(recovered->values[i], recovered->scales[0])), weights[i]) << i;
    }
    EXPECT_FALSE(plan::recoverInt8Weights(weights, 1).has_value()); // as FP32 weights they are off the grid
    // One FP16 step off the grid: no scale gives 1 step and 127 steps back.
    weights[3] = halfBitsToFloat(static_cast<uint16_t>(floatToHalfBits(weights[3]) + 1));
    EXPECT_FALSE(plan::recoverInt8Weights(weights, 1, DataType::kHALF).has_value());
}

TEST(Fp8Weights, RecoversValuesAndScalesFromFp16Weights)
{
    // One channel of a product in an FP16 build (trtexec's --fp8 --fp16): each weight is an FP8 value times Model
    // Optimizer's scale, rounded to FP16. Codes of 448, -3.25, 1, 3 * 2^-9 (a subnormal), 0 and -104.
    float const scale = 0.3F / 448.0F;
    std::vector<uint8_t> const q{0x7E, 0xC5, 0x38, 0x03, 0x00, 0xED};
    std::vector<float> weights;
    for (uint8_t code : q)
    {
        weights.push_back(roundThroughHalf(dequantizeFp8(code, scale)));
    }
    std::optional<plan::Fp8Weights> const recovered = plan::recoverFp8Weights(weights, 1, DataType::kHALF);
    ASSERT_TRUE(recovered.has_value());
    EXPECT_EQ(recovered->values, q);
    for (size_t i = 0; i < q.size(); ++i)
    {
        EXPECT_EQ(roundThroughHalf(dequantizeFp8(recovered->values[i], recovered->scales[0])), weights[i]) << i;
    }
    EXPECT_FALSE(plan::recoverFp8Weights(weights, 1).has_value()); // as FP32 weights they are off the grid
    // The same channel with its largest weight at 36 steps (0x61), as in Model Optimizer's ViT export: some scale
    // gives every weight back (36 steps of s are 288 steps of s / 8, and FP8's values times 8 are FP8 values too).
    std::vector<uint8_t> const short8{0x61, 0xC5, 0x38, 0x03, 0x00, 0xD5};
    std::vector<float> shortWeights;
    for (uint8_t code : short8)
    {
        shortWeights.push_back(roundThroughHalf(dequantizeFp8(code, 0.00155171F)));
    }
    std::optional<plan::Fp8Weights> const shortRecovered = plan::recoverFp8Weights(shortWeights, 1, DataType::kHALF);
    ASSERT_TRUE(shortRecovered.has_value());
    for (size_t i = 0; i < short8.size(); ++i)
    {
        EXPECT_EQ(
            roundThroughHalf(dequantizeFp8(shortRecovered->values[i], shortRecovered->scales[0])), shortWeights[i])
            << i;
    }
    // The weight of one step replaced by 1.0625 steps, which needs a fourth mantissa bit: off FP8's grid by far more
    // than FP16's rounding.
    weights[2] = roundThroughHalf(1.0625F * scale);
    EXPECT_FALSE(plan::recoverFp8Weights(weights, 1, DataType::kHALF).has_value());
}

} // namespace
} // namespace kiln::test
