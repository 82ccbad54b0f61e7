// The propagation of Q/DQ across data-movement layers (plan/passes/quantization_propagation.h) on small Q/DQ networks.
//
// Exactness: each network's plan for the CPU reference kernels (which keep every layer as written) is run as built
// and again after the pass alone has rewritten it: the two must give the same bits, since the moves change no value.
// Cases where a move would change values (scales that differ at a concatenation, a per-channel axis a reshape merges
// away, a negative scale at a max pooling, a DQ -> Q pair whose FP16 values overflow) must leave the layer as it was.
// On the fast path the moved pairs let the quantized fusions take the product or convolution behind a reshape or a
// transpose: those plans are compared with the reference within one step of the output's scale, as the fusion tests
// do (quantized_matrix_multiply_test.cpp says why).
#include "qdq_builder.h"

#include "backend/cpu/fast/fast_path.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "plan/passes/quantization_propagation.h"
#include "plan/plan_graph.h"

#include <cmath>

namespace kiln::test
{
namespace
{

using network::kQuantizedMatrixMultiplyLayerType;

//! The reference kernels pool INT8 tensors; products by one-value constants move back before shuffles, as the CPU
//! backend's rules say.
plan::QuantizationPropagationRules referenceRules()
{
    return plan::QuantizationPropagationRules{[](plan::PlanModel const& model, plan::LayerRecord const& record) {
                                                  return plan::slotType(model, record, 0) == DataType::kINT8;
                                              },
        true};
}

//! Plan `model` with each tensor in activation memory, and each the pass added, in memory of its own: the moves
//! change how long tensors live, so the builder's sharing of memory between them no longer holds.
std::vector<uint8_t> withMemoryForAddedTensors(plan::PlanModel model, size_t tensorsBefore)
{
    model.arenaBytes = 0;
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        if (t < tensorsBefore && model.tensors[t].arenaOffset < 0)
        {
            continue;
        }
        model.arenaBytes = (model.arenaBytes + 255) / 256 * 256;
        model.tensors[t].arenaOffset = model.arenaBytes;
        model.arenaBytes += model.tensors[t].maxBytes;
    }
    return plan::writePlan(model);
}

struct Propagated
{
    plan::PlanModel model; //!< the reference plan after the pass
    plan::QuantizationPropagation moves;
};

//! Runs the network's reference plan as built and after the pass, expecting the same bits; returns the moved plan.
Propagated expectSameBitsAfterPropagation(Network const& network, BuildSettings const& settings = {})
{
    std::vector<uint8_t> const built = buildCpuPlan(network.maker(), CpuKernels::kREFERENCE, settings);
    Propagated result{readModel(built), {}};
    size_t const tensorsBefore = result.model.tensors.size();
    result.moves = plan::propagateQuantization(result.model, referenceRules());
    std::vector<Tensors> const runs = network.inputValues();
    std::vector<Tensors> const expected = runCpuPlan(built, runs);
    std::vector<Tensors> const moved = runCpuPlan(withMemoryForAddedTensors(result.model, tensorsBefore), runs);
    EXPECT_EQ(moved.size(), expected.size());
    for (size_t run = 0; run < std::min(moved.size(), expected.size()); ++run)
    {
        for (auto const& [name, tensor] : expected[run])
        {
            EXPECT_EQ(moved[run].at(name).bytes, tensor.bytes) << "run " << run << ", " << name;
        }
    }
    return result;
}

int32_t axisOfDequantization(plan::PlanModel const& model, std::string const& name)
{
    auto const* params = plan::paramsOf<network::DequantizeParams>(layerNamed(model, name));
    return params != nullptr ? params->axis : -1;
}

//! A transformer's attention output: DQ -> reshape -> transpose -> MatMul by weights -> bias -> reshape -> Q/DQ.
Network const kAttentionOutput{[](Builder& b) {
                                   ITensor& x = b.pair(b.input("a", {2, 6, 8}), {kScale}, "input");
                                   ITensor& heads = b.shuffle(x, {2, 6, 2, 4}, {0, 2, 1, 3}, "split heads");
                                   ITensor& y = b.linear(heads, 4, 5);
                                   ITensor& merged = b.shuffle(y, {2, 2, 30}, {}, "merge");
                                   markOutput(b.network(), b.pair(merged, {kOutputScale}, "output"));
                               },
    {{2, 6, 8}}};

TEST(QuantizationPropagation, MovesDequantizationForwardAndQuantizationBackAcrossShuffles)
{
    Propagated const p = expectSameBitsAfterPropagation(kAttentionOutput);
    EXPECT_EQ(p.moves.dequantizationsMoved, 1U);
    EXPECT_EQ(p.moves.quantizationsMoved, 1U);
    EXPECT_EQ(typesOf(p.model, "split heads"), kInt8);
    EXPECT_EQ(typesOf(p.model, "merge"), kInt8);
    EXPECT_EQ(layerNamed(p.model, "dq input").outputs[0], layerNamed(p.model, "product").inputs[0]);
    EXPECT_EQ(layerNamed(p.model, "bias sum").outputs[0], layerNamed(p.model, "q output").inputs[0]);
}

TEST(QuantizationPropagation, LetsTheProductBehindTheShufflesFuseOnTheFastPath)
{
    std::vector<Tensors> const runs{randomInputs(kAttentionOutput.inputs, 5)};
    expectFastMatchesReference(kAttentionOutput.maker(), runs, Tolerance(kOutputScale * 1.001));
    plan::PlanModel const fast = readModel(buildCpuPlan(kAttentionOutput.maker(), CpuKernels::kFAST));
    EXPECT_EQ(layerNamed(fast, "dq input + product + bias sum + q output").type, kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(fast, LayerType::kMATRIX_MULTIPLY), 0U);
    EXPECT_EQ(countOf(fast, LayerType::kQUANTIZE), 1U); // the input's
    EXPECT_EQ(typesOf(fast, "merge"), kInt8);
    // The shuffles moved onto INT8 run on the fast path too (one oneDNN reorder of bytes each).
    EXPECT_TRUE(cpu::fast::isMarked(layerNamed(fast, "split heads")));
    EXPECT_TRUE(cpu::fast::isMarked(layerNamed(fast, "merge")));
}

//! ShuffleNetV2's channel shuffle in a Q/DQ network: a quantized convolution's 12 maps shuffled in two groups (reshape,
//! transpose, reshape) into another quantized convolution.
Network const kQuantizedShuffle{[](Builder& b) {
                                    ITensor& x = b.pair(b.input("a", {2, 3, 6, 7}), {kScale}, "x");
                                    ITensor& maps = b.pair(b.convolution(x, 12), {kScale}, "maps");
                                    ITensor& split = b.shuffle(maps, {2, 2, 6, 6, 7}, {}, "split");
                                    ITensor& moved = b.shuffle(split, {}, {0, 2, 1, 3, 4}, "transpose");
                                    ITensor& shuffled = b.shuffle(moved, {2, 12, 6, 7}, {}, "merge");
                                    markOutput(b.network(), b.convolution(b.pair(shuffled, {kScale}, "shuffled"), 5));
                                },
    {{2, 3, 6, 7}}};

TEST(QuantizationPropagation, ChannelShufflesOnInt8GatherOnTheFastPath)
{
    // The DQ after the first convolution moves across the shuffles and meets the Q after them; the shuffles, moving
    // INT8 codes, become one gather (plan/passes/channel_permutation.h) from the first convolution's channels-last
    // output into the second's channels-last input, two runs of channels interleaved (0, 6, 1, 7, ...).
    expectFastMatchesReference(kQuantizedShuffle.maker(), kQuantizedShuffle.inputValues(), Tolerance(1e-5, 1e-5));
    plan::PlanModel const fast = readModel(buildCpuPlan(kQuantizedShuffle.maker(), CpuKernels::kFAST));
    EXPECT_EQ(countOf(fast, LayerType::kSHUFFLE), 0U);
    plan::LayerRecord const& gather = layerNamed(fast, "split + transpose + merge");
    EXPECT_EQ(gather.type, LayerType::kGATHER);
    EXPECT_TRUE(cpu::fast::isMarked(gather));
    EXPECT_EQ(typesOf(fast, gather.name), kInt8);
    EXPECT_EQ(plan::slotFormat(fast, gather, 0), TensorFormat::kHWC);
    EXPECT_EQ(plan::slotFormat(fast, gather, 2), TensorFormat::kHWC);
}

//! BERT's queries as transformers export scaled dot-product attention: DQ -> product by weights -> bias -> split into
//! heads -> times a constant -> Q/DQ; or without the quantization after the product.
Network scaledQueries(bool quantized)
{
    return Network{[quantized](Builder& b) {
                       ITensor& x = b.pair(b.input("a", {2, 6, 8}), {kScale}, "input");
                       ITensor& heads = b.shuffle(b.linear(x, 8, 8), {2, 6, 2, 4}, {0, 2, 1, 3}, "split heads");
                       ITensor& scaled = b.scaled(heads, 0.5946F, "scale");
                       markOutput(b.network(), quantized ? b.pair(scaled, {kOutputScale}, "output") : scaled);
                   },
        {{2, 6, 8}}};
}

TEST(QuantizationPropagation, MovesAScalingBackBeforeAShuffleForTheQuantizationAfterIt)
{
    Propagated const p = expectSameBitsAfterPropagation(scaledQueries(true));
    EXPECT_EQ(p.moves.scalingsMoved, 1U);
    EXPECT_EQ(p.moves.quantizationsMoved, 1U);
    EXPECT_EQ(layerNamed(p.model, "bias sum").outputs[0], layerNamed(p.model, "scale").inputs[0]);
    EXPECT_EQ(layerNamed(p.model, "scale").outputs[0], layerNamed(p.model, "q output").inputs[0]);
    EXPECT_EQ(typesOf(p.model, "split heads"), kInt8);
    // Without a quantization after it the product stays where it was.
    Propagated const unquantized = expectSameBitsAfterPropagation(scaledQueries(false));
    EXPECT_EQ(unquantized.moves.scalingsMoved, 0U);
    EXPECT_EQ(
        layerNamed(unquantized.model, "split heads").outputs[0], layerNamed(unquantized.model, "scale").inputs[0]);
}

TEST(QuantizationPropagation, LetsTheScaledProductFuseWithItsQuantizationOnTheFastPath)
{
    Network const network = scaledQueries(true);
    std::vector<Tensors> const runs{randomInputs(network.inputs, 5)};
    expectFastMatchesReference(network.maker(), runs, Tolerance(kOutputScale * 1.001));
    plan::PlanModel const fast = readModel(buildCpuPlan(network.maker(), CpuKernels::kFAST));
    EXPECT_EQ(
        layerNamed(fast, "dq input + product + bias sum + scale + q output").type, kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(fast, LayerType::kELEMENTWISE), 0U);
    EXPECT_EQ(typesOf(fast, "split heads"), kInt8);
}

Network concatenationOf(float secondScale, int32_t axis)
{
    return Network{[secondScale, axis](Builder& b) {
                       ITensor& x = b.pair(b.input("a", {2, 3, 4}), {kScale}, "a");
                       ITensor& y = b.pair(b.input("b", {2, 3, 4}), {secondScale}, "b");
                       ITensor& joined = b.concatenation({&x, &y}, axis);
                       markOutput(b.network(), b.shuffle(joined, {}, {2, 0, 1}, "transpose"));
                   },
        {{2, 3, 4}, {2, 3, 4}}};
}

TEST(QuantizationPropagation, MovesDequantizationsOfOneScaleForwardAcrossAConcatenation)
{
    Propagated const p = expectSameBitsAfterPropagation(concatenationOf(kScale, 1));
    EXPECT_EQ(typesOf(p.model, "concatenation"), kInt8);
    EXPECT_EQ(typesOf(p.model, "transpose"), kInt8);
    EXPECT_EQ(countOf(p.model, LayerType::kDEQUANTIZE), 1U);
}

TEST(QuantizationPropagation, LeavesAConcatenationOfDifferentScales)
{
    Propagated const p = expectSameBitsAfterPropagation(concatenationOf(2.0F * kScale, 1));
    EXPECT_EQ(p.moves.dequantizationsMoved, 0U);
    EXPECT_EQ(typesOf(p.model, "concatenation"), kFloat);
    EXPECT_EQ(countOf(p.model, LayerType::kDEQUANTIZE), 2U);
}

TEST(QuantizationPropagation, MovesAQuantizationBackAcrossAConcatenationIntoEachInput)
{
    Network const network{[](Builder& b) {
                              ITensor& joined = b.concatenation({&b.input("a", {3, 2}), &b.input("b", {5, 2})}, 0);
                              ITensor& reshaped = b.shuffle(joined, {16}, {}, "flatten");
                              markOutput(b.network(), b.pair(reshaped, {kScale}, "output"));
                          },
        {{3, 2}, {5, 2}}};
    Propagated const p = expectSameBitsAfterPropagation(network);
    EXPECT_EQ(p.moves.quantizationsMoved, 2U);
    EXPECT_EQ(typesOf(p.model, "concatenation"), kInt8);
    EXPECT_EQ(typesOf(p.model, "flatten"), kInt8);
    EXPECT_EQ(countOf(p.model, LayerType::kQUANTIZE), 2U);
}

std::vector<float> const kChannelScales{kScale, 2.0F * kScale, 0.5F * kScale, 3.0F * kScale};

//! DQ along axis 1 of [2, 4, 3, 3], then a shuffle.
Network perChannel(Shape reshape, std::vector<int32_t> transpose)
{
    return Network{[reshape, transpose](Builder& b) {
                       ITensor& x = b.pair(b.input("a", {2, 4, 3, 3}), kChannelScales, "input", 1);
                       markOutput(b.network(), b.shuffle(x, reshape, transpose, "shuffle"));
                   },
        {{2, 4, 3, 3}}};
}

TEST(QuantizationPropagation, CarriesAPerChannelAxisThroughReshapesAndTransposes)
{
    Propagated const merged = expectSameBitsAfterPropagation(perChannel({2, 4, 9}, {}));
    EXPECT_EQ(typesOf(merged.model, "shuffle"), kInt8);
    EXPECT_EQ(axisOfDequantization(merged.model, "dq input"), 1);
    Propagated const transposed = expectSameBitsAfterPropagation(perChannel({}, {0, 2, 3, 1}));
    EXPECT_EQ(typesOf(transposed.model, "shuffle"), kInt8);
    EXPECT_EQ(axisOfDequantization(transposed.model, "dq input"), 3);
    Propagated const both = expectSameBitsAfterPropagation(perChannel({1, 2, 4, 9}, {0, 3, 2, 1}));
    EXPECT_EQ(typesOf(both.model, "shuffle"), kInt8);
    EXPECT_EQ(axisOfDequantization(both.model, "dq input"), 2);
}

TEST(QuantizationPropagation, LeavesAPerChannelAxisThatAReshapeMergesAway)
{
    // [4, 2, 9] keeps an axis of 4, but its indices select other elements: the batch's and the channels' mixed.
    for (Shape const& reshape : {Shape{2, 36}, Shape{8, 9}, Shape{2, 2, 2, 9}, Shape{4, 2, 9}})
    {
        Propagated const p = expectSameBitsAfterPropagation(perChannel(reshape, {}));
        EXPECT_EQ(p.moves.dequantizationsMoved, 0U);
        EXPECT_EQ(typesOf(p.model, "shuffle"), kFloat);
    }
}

//! DQ -> 3x3 max pooling -> Q/DQ of `pooledScale`, the dequantization's scales `inputScales` along axis 1.
Network pooling(std::vector<float> inputScales, float pooledScale)
{
    return Network{[inputScales, pooledScale](Builder& b) {
                       ITensor& x = b.pair(b.input("a", {2, 4, 7, 7}), inputScales, "input", 1);
                       markOutput(b.network(), b.pair(b.maxPooling(x), {pooledScale}, "pooled"));
                   },
        {{2, 4, 7, 7}}};
}

TEST(QuantizationPropagation, MovesMaxPoolingOntoInt8AndRemovesTheRoundTrip)
{
    Propagated const p = expectSameBitsAfterPropagation(pooling({kScale}, kScale));
    EXPECT_EQ(typesOf(p.model, "pool"), kInt8);
    EXPECT_EQ(p.moves.pairsRemoved, 1U);
    EXPECT_EQ(countOf(p.model, LayerType::kQUANTIZE), 1U);
    EXPECT_EQ(countOf(p.model, LayerType::kDEQUANTIZE), 1U);
}

TEST(QuantizationPropagation, MovesMaxPoolingOntoInt8BetweenDifferentScales)
{
    Propagated const perTensor = expectSameBitsAfterPropagation(pooling({kScale}, 2.0F * kScale));
    EXPECT_EQ(typesOf(perTensor.model, "pool"), kInt8);
    EXPECT_EQ(perTensor.moves.pairsRemoved, 0U); // requantizing into another scale rounds
    Propagated const perChannel = expectSameBitsAfterPropagation(pooling(kChannelScales, kScale));
    EXPECT_EQ(typesOf(perChannel.model, "pool"), kInt8);
}

TEST(QuantizationPropagation, LeavesMaxPoolingOfANegativeScale)
{
    // Dequantizing by a negative scale reverses the order: the largest INT8 value is the smallest dequantized one. The
    // Q of positive scale after the pooling moves back before it instead, leaving the DQ where it was.
    std::vector<float> scales = kChannelScales;
    scales[2] = -scales[2];
    Propagated const p = expectSameBitsAfterPropagation(pooling(scales, kScale));
    EXPECT_EQ(p.moves.dequantizationsMoved, 0U);
    EXPECT_EQ(p.moves.quantizationsMoved, 1U);
    EXPECT_EQ(typesOf(p.model, "dq input"), std::make_pair(DataType::kINT8, DataType::kFLOAT));
}

TEST(QuantizationPropagation, KeepsARoundTripWhoseHalfValuesWouldOverflow)
{
    // In FP16, 100 steps of 1000 overflow to infinity, which quantizes to 127: the DQ -> Q pair is not the identity.
    auto const fp16 = [](IBuilder&, IBuilderConfig& config) { config.setFlag(BuilderFlag::kFP16); };
    Shape const shape{1, 2, 6, 6};
    std::vector<int64_t> steps(static_cast<size_t>(volume(shape)));
    for (size_t i = 0; i < steps.size(); ++i)
    {
        steps[i] = static_cast<int64_t>(i * 37 % 255) - 127;
    }
    Network const network{[](Builder& b) {
                              ITensor& x = b.dequantize(b.input("a", {1, 2, 6, 6}, DataType::kINT8), {1000.0F}, "a");
                              markOutput(b.network(), b.pair(b.maxPooling(x), {1000.0F}, "pooled"));
                          },
        {shape}, {{{"a", fromInts(shape, steps, DataType::kINT8)}}}};
    Propagated const p = expectSameBitsAfterPropagation(network, fp16);
    EXPECT_EQ(typesOf(p.model, "pool"), kInt8);
    EXPECT_EQ(p.moves.pairsRemoved, 0U);
}

} // namespace
} // namespace kiln::test
