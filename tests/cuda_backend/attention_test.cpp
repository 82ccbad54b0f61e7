// Attention on the CUDA backend: which MatMul, scale, mask, SoftMax, MatMul chains the builder fuses into one
// attention layer in FP16 and FP32 plans, with the transposes around them that exports write (read from the CUDA
// plan, without a GPU), and that the fused kernels compute what the CPU reference computes unfused, layer by layer:
// sequence lengths that are not multiples of the kernel's tiles, depths that are not multiples of 16, broadcast
// masks, rows masked throughout, long sequences, operands read through absorbed transposes; and quantized attention,
// whose Q -> DQ pairs join the fused layer as roundings.
#include "backend_comparison.h"
#include "network/fused/attention.h"
#include "network/layers/shuffle.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "plan/plan_validation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <utility>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using Op = MatrixOperation;

//! One attention as exporters spell it: softmax(q * s . k [/ divisor] + mask) . v, over [batch, heads, ., .].
struct AttentionCase
{
    int64_t batch{2};
    int64_t heads{3};
    int64_t queries{20};
    int64_t keys{20};
    int64_t depth{16};
    int64_t valueDepth{16};
    bool keysByRow{false};    //!< k is [.., Sk, D] and the product transposes it, else [.., D, Sk]
    float queryScale{0.25F};  //!< multiplies q before the product (1: no multiplication)
    float divisor{1.0F};      //!< divides the scores after the product (1: no division)
    bool mask{true};          //!< an additive mask input [batch, 1, 1, Sk]
    bool nanGuard{false};     //!< Where(IsNaN(p), 0, p) after the SoftMax
    bool maskWholeRow{false}; //!< the mask puts -inf on every key of batch 0
    bool sharedKeys{false};   //!< keys and values have one head, broadcast to every query head (multi-query)
    //! q, k and v are inputs [batch, tokens, heads, depth], transposed into heads as BERT's export does, and the
    //! output is transposed back into [batch, tokens, heads, value depth]
    bool tokensMajor{false};
    //! q, k and v are inputs [tokens, batch * heads, depth] as PyTorch's nn.MultiheadAttention holds them, the heads
    //! moved to the front by a transpose and split from the batch by a reshape after it (torchvision's ViT), and the
    //! output is transposed into [tokens, batch, heads, value depth]
    bool headsSplitAfterTranspose{false};
    bool dynamicBatch{false}; //!< with headsSplitAfterTranspose: the inputs' second axis is dynamic (-1)
    //! q, k and v are one input "qkv" [batch, tokens, 3, heads, depth] split as timm's ViT exports it (queries, keys,
    //! depth and value depth must then agree), and the output is transposed into [batch, tokens, heads, depth]
    bool splitProduct{false};
    //! kINT8 or kFP8: Q -> DQ pairs by one scale on the (scaled) query, the keys, the values, the scores before the
    //! mask and the probabilities, as Model Optimizer's exports put them (kFLOAT: none)
    DataType quantized{DataType::kFLOAT};
    //! q, k and v spread over their ranges in a scrambled order rather than as ramps, so that neighbouring keys hold
    //! unlike values and a change of the probabilities shows in the output
    bool scrambled{false};
    float queryStep{0.0F};
    float keysStep{0.0F};
    float valuesStep{0.0F};
    float scoresStep{0.0F};
    float probabilitiesStep{0.0F};

    NetworkMaker maker() const
    {
        AttentionCase const c = *this;
        return [c](INetworkDefinition& network) {
            std::array<ITensor*, 3> const split = c.splitProduct ? c.splitOperands(network) : std::array<ITensor*, 3>{};
            ITensor* q = c.splitProduct ? split[0] : c.operand(network, "q", c.queries, c.depth, false, {0, 2, 1, 3});
            ITensor* k = c.splitProduct ? split[1]
                : c.keysByRow           ? c.operand(network, "k", c.keys, c.depth, true, {0, 2, 1, 3})
                                        : c.operand(network, "k", c.keys, c.depth, true, {0, 2, 3, 1});
            ITensor* v = c.splitProduct ? split[2] : c.operand(network, "v", c.keys, c.valueDepth, true, {0, 2, 1, 3});
            auto scalar = [&](float value, char const* name) -> ITensor& {
                // Kiln copies a constant's weights when the layer is added.
                IConstantLayer* layer
                    = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, &value, 1});
                layer->setName(name);
                return *layer->getOutput(0);
            };
            ITensor* query = q;
            if (c.queryScale != 1.0F)
            {
                IElementWiseLayer* scaled
                    = network.addElementWise(*q, scalar(c.queryScale, "s"), ElementWiseOperation::kPROD);
                scaled->setName("scale q");
                query = scaled->getOutput(0);
            }
            query = c.rounded(network, *query, c.queryStep, "q");
            k = c.rounded(network, *k, c.keysStep, "k");
            v = c.rounded(network, *v, c.valuesStep, "v");
            IMatrixMultiplyLayer* scores
                = network.addMatrixMultiply(*query, Op::kNONE, *k, c.keysByRow ? Op::kTRANSPOSE : Op::kNONE);
            scores->setName("qk");
            ITensor* s = scores->getOutput(0);
            if (c.divisor != 1.0F)
            {
                IElementWiseLayer* divided
                    = network.addElementWise(*s, scalar(c.divisor, "d"), ElementWiseOperation::kDIV);
                divided->setName("divide");
                s = divided->getOutput(0);
            }
            s = c.rounded(network, *s, c.scoresStep, "scores");
            if (c.mask)
            {
                ITensor* maskInput = network.addInput("mask", DataType::kFLOAT, Dims{4, {c.batch, 1, 1, c.keys}});
                s = &add(network, *s, *maskInput, "mask");
            }
            ISoftMaxLayer* softmax = network.addSoftMax(*s);
            softmax->setAxes(1U << 3);
            softmax->setName("softmax");
            ITensor* p = softmax->getOutput(0);
            if (c.nanGuard)
            {
                IUnaryLayer* isNaN = network.addUnary(*p, UnaryOperation::kISNAN);
                isNaN->setName("isnan");
                ISelectLayer* select = network.addSelect(*isNaN->getOutput(0), scalar(0.0F, "zero"), *p);
                select->setName("where");
                p = select->getOutput(0);
            }
            p = c.rounded(network, *p, c.probabilitiesStep, "p");
            IMatrixMultiplyLayer* product = network.addMatrixMultiply(*p, Op::kNONE, *v, Op::kNONE);
            product->setName("pv");
            ITensor* y = product->getOutput(0);
            if (c.tokensMajor || c.splitProduct)
            {
                y = transposed(network, *y, {0, 2, 1, 3}, "merge heads");
            }
            if (c.headsSplitAfterTranspose)
            {
                y = transposed(network, *y, {2, 0, 1, 3}, "tokens first");
            }
            y->setName("y");
            network.markOutput(*y);
        };
    }

    //! `x` quantized into `quantized` by `step` and dequantized back (a 0-D scale), where the case quantizes and the
    //! step is not 0; else x.
    ITensor* rounded(INetworkDefinition& network, ITensor& x, float step, std::string const& name) const
    {
        if (quantized == DataType::kFLOAT || step == 0.0F)
        {
            return &x;
        }
        IConstantLayer* scale = network.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &step, 1});
        scale->setName(("step of " + name).c_str());
        IQuantizeLayer* quantize = network.addQuantize(x, *scale->getOutput(0), quantized);
        quantize->setName(("quantize " + name).c_str());
        IDequantizeLayer* dequantize
            = network.addDequantize(*quantize->getOutput(0), *scale->getOutput(0), DataType::kFLOAT);
        dequantize->setName(("dequantize " + name).c_str());
        return dequantize->getOutput(0);
    }

    //! The input `name` [batch, heads, rows, columns] (heads 1 for keys and values shared by every head); where
    //! tokensMajor, an input [batch, rows, heads, columns] and the transpose `order` of it.
    ITensor* operand(INetworkDefinition& network, char const* name, int64_t rows, int64_t columns, bool keysOrValues,
        std::vector<int32_t> const& order) const
    {
        int64_t const operandHeads = keysOrValues && sharedKeys ? 1 : heads;
        bool const byColumn = name == std::string("k") && !keysByRow;
        if (headsSplitAfterTranspose)
        {
            Dims dims = inputDims(name);
            dims.d[1] = dynamicBatch ? -1 : dims.d[1];
            ITensor* stored = network.addInput(name, DataType::kFLOAT, dims);
            ITensor* moved = transposed(network, *stored, {1, 0, 2}, (std::string("move heads of ") + name).c_str());
            IShuffleLayer* split = network.addShuffle(*moved);
            split->setReshapeDimensions(Dims{4, {-1, operandHeads, rows, columns}});
            split->setName((std::string("split heads of ") + name).c_str());
            ITensor* y = split->getOutput(0);
            return byColumn ? transposed(network, *y, {0, 1, 3, 2}, "keys by column") : y;
        }
        if (!tokensMajor)
        {
            Dims const dims = byColumn ? Dims{4, {batch, operandHeads, columns, rows}}
                                       : Dims{4, {batch, operandHeads, rows, columns}};
            return network.addInput(name, DataType::kFLOAT, dims);
        }
        ITensor* stored = network.addInput(name, DataType::kFLOAT, Dims{4, {batch, rows, operandHeads, columns}});
        return transposed(network, *stored, order, (std::string("split heads of ") + name).c_str());
    }

    //! q, k and v of splitProduct: the input's transpose into [3, batch, heads, tokens, depth], a slice of each index
    //! and a reshape that drops its axis; keys by column transposed after.
    std::array<ITensor*, 3> splitOperands(INetworkDefinition& network) const
    {
        ITensor* qkv = network.addInput("qkv", DataType::kFLOAT, Dims{5, {batch, queries, 3, heads, depth}});
        ITensor* moved = transposed(network, *qkv, {2, 0, 3, 1, 4}, "move q, k and v first");
        std::array<ITensor*, 3> split{};
        for (int32_t i = 0; i < 3; ++i)
        {
            ISliceLayer* slice = network.addSlice(
                *moved, Dims{5, {i, 0, 0, 0, 0}}, Dims{5, {1, batch, heads, queries, depth}}, Dims{5, {1, 1, 1, 1, 1}});
            slice->setName(("split " + std::to_string(i)).c_str());
            IShuffleLayer* squeeze = network.addShuffle(*slice->getOutput(0));
            squeeze->setReshapeDimensions(Dims{4, {batch, heads, queries, depth}});
            squeeze->setName(("squeeze " + std::to_string(i)).c_str());
            split[static_cast<size_t>(i)] = squeeze->getOutput(0);
        }
        if (!keysByRow)
        {
            split[1] = transposed(network, *split[1], {0, 1, 3, 2}, "keys by column");
        }
        return split;
    }

    //! The stored shape of input `name`, as operand() makes it.
    Dims inputDims(char const* name) const
    {
        bool const keysOrValues = name != std::string("q");
        int64_t const operandHeads = keysOrValues && sharedKeys ? 1 : heads;
        int64_t const rows = keysOrValues ? keys : queries;
        int64_t const columns = name == std::string("q") || name == std::string("k") ? depth : valueDepth;
        if (headsSplitAfterTranspose)
        {
            return Dims{3, {rows, batch * operandHeads, columns}};
        }
        if (tokensMajor)
        {
            return Dims{4, {batch, rows, operandHeads, columns}};
        }
        bool const byColumn = name == std::string("k") && !keysByRow;
        return byColumn ? Dims{4, {batch, operandHeads, columns, rows}} : Dims{4, {batch, operandHeads, rows, columns}};
    }

    //! `count` values over [low, high]: a ramp, or where `scrambled` the fractional parts of i times the golden ratio.
    std::vector<float> values(size_t count, float low, float high) const
    {
        std::vector<float> ramp = spread(count, low, high);
        for (size_t i = 0; scrambled && i < count; ++i)
        {
            double const fraction = static_cast<double>(i) * 0.6180339887498949;
            ramp[i] = low + (high - low) * static_cast<float>(fraction - std::floor(fraction));
        }
        return ramp;
    }

    std::map<std::string, HostTensor> inputs() const
    {
        std::map<std::string, HostTensor> in;
        if (splitProduct)
        {
            kiln::Shape const stacked{batch, queries, 3, heads, depth};
            in.emplace("qkv", fromFloats(stacked, values(static_cast<size_t>(kiln::volume(stacked)), -1.0F, 1.0F)));
        }
        Dims const qDims = inputDims("q");
        Dims const kDims = inputDims("k");
        Dims const vDims = inputDims("v");
        if (!splitProduct)
        {
            in.emplace("q", fromFloats(shapeOf(qDims), values(volumeOf(qDims), -1.0F, 1.0F)));
            in.emplace("k", fromFloats(shapeOf(kDims), values(volumeOf(kDims), -1.5F, 1.0F)));
            in.emplace("v", fromFloats(shapeOf(vDims), values(volumeOf(vDims), -1.0F, 0.5F)));
        }
        if (mask)
        {
            // Batch b masks its last b * 3 keys with a large negative number, as BERT's padding mask does.
            std::vector<float> values(static_cast<size_t>(batch * keys), 0.0F);
            for (int64_t b = 0; b < batch; ++b)
            {
                for (int64_t j = 0; j < keys; ++j)
                {
                    bool const masked = (maskWholeRow && b == 0) || j >= keys - b * 3;
                    float const lowest = maskWholeRow ? -std::numeric_limits<float>::infinity() : -1e4F;
                    values[static_cast<size_t>(b * keys + j)] = masked ? lowest : 0.0F;
                }
            }
            in.emplace("mask", fromFloats({batch, 1, 1, keys}, values));
        }
        return in;
    }
};

kiln::plan::LayerRecord const* attentionLayer(kiln::plan::PlanModel const& model)
{
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type == kiln::network::kAttentionLayerType)
        {
            return &layer;
        }
    }
    return nullptr;
}

//! `maker`'s network with the output of its layer named `layer` also a network output, named `name`: a tensor inside
//! the chain that must be written.
NetworkMaker withOutputOf(NetworkMaker const& maker, std::string const& layer, char const* name)
{
    return [=](INetworkDefinition& network) {
        maker(network);
        for (int32_t l = 0; l < network.getNbLayers(); ++l)
        {
            if (network.getLayer(l)->getName() == layer)
            {
                network.getLayer(l)->getOutput(0)->setName(name);
                network.markOutput(*network.getLayer(l)->getOutput(0));
            }
        }
    };
}

//! Logical axis i of a fused layer's operand is stored axis order[i] (AttentionParams' permutations).
std::vector<int32_t> orderOf(Permutation const& p)
{
    return std::vector<int32_t>(p.order, p.order + 4);
}

// ---- Which chains fuse (no GPU needed) ----

TEST(CudaAttentionFusion, ScaleMaskSoftmaxAndBothProductsBecomeOneLayer)
{
    AttentionCase const bert{};
    kiln::plan::PlanModel const model = cudaPlanOf(bert.maker(), true);
    ASSERT_EQ(model.layers.size(), 1U) << "the scale's constant is absorbed too";
    kiln::plan::LayerRecord const* fused = attentionLayer(model);
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->name, "scale q + qk + mask + softmax + pv");
    EXPECT_EQ(fused->inputs.size(), 4U);
    auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(*fused);
    ASSERT_NE(params, nullptr);
    EXPECT_FLOAT_EQ(params->scale, 0.25F);
    EXPECT_FALSE(params->keysByRow);
    EXPECT_FALSE(params->zeroNaNProbabilities);

    AttentionCase guarded{};
    guarded.keysByRow = true;
    guarded.divisor = 8.0F;
    guarded.nanGuard = true;
    kiln::plan::PlanModel const other = cudaPlanOf(guarded.maker(), true);
    ASSERT_EQ(other.layers.size(), 1U);
    auto const* guardedParams = kiln::plan::paramsOf<kiln::network::AttentionParams>(other.layers[0]);
    ASSERT_NE(guardedParams, nullptr);
    EXPECT_FLOAT_EQ(guardedParams->scale, 0.25F / 8.0F);
    EXPECT_TRUE(guardedParams->keysByRow);
    EXPECT_TRUE(guardedParams->zeroNaNProbabilities);
}

TEST(CudaAttentionFusion, TheTransposesAroundAttentionAreAbsorbed)
{
    for (bool keysByRow : {false, true})
    {
        AttentionCase c{};
        c.tokensMajor = true;
        c.keysByRow = keysByRow;
        kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), true);
        ASSERT_EQ(model.layers.size(), 1U) << "the four transposes are read through, not run";
        auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(model.layers[0]);
        ASSERT_NE(params, nullptr);
        // Logical axis i of each operand is stored axis order[i]: heads (1) are stored at 2, tokens (2) at 1.
        std::vector<int32_t> const swapped{0, 2, 1, 3};
        std::vector<int32_t> const keyOrder = keysByRow ? swapped : std::vector<int32_t>{0, 2, 3, 1};
        EXPECT_EQ(orderOf(params->queryAxes), swapped);
        EXPECT_EQ(orderOf(params->keyAxes), keyOrder);
        EXPECT_EQ(orderOf(params->valueAxes), swapped);
        EXPECT_EQ(orderOf(params->outputAxes), swapped);
        EXPECT_EQ(model.layers[0].name.find("split heads of q"), 0U) << model.layers[0].name;
    }
}

//! Expects `model` to be one attention layer reading q, k and v with each operand's heads split after their
//! transpose: the heads of [tokens, batch, heads, depth] read as [batch, heads, tokens, depth]. The transposes have
//! become reshapes that split the inputs' second axis: views of the inputs, or in FP16 (`converts`) layers that also
//! convert the FP32 inputs.
void expectAttentionReadsSplitHeads(kiln::plan::PlanModel const& model, bool keysByRow, bool converts)
{
    kiln::plan::LayerRecord const* fused = attentionLayer(model);
    ASSERT_NE(fused, nullptr);
    char const* const inputs[] = {"q", "k", "v"};
    for (size_t i = 0; i < 3; ++i)
    {
        int32_t const operand = fused->inputs[i];
        auto const writer = std::find_if(model.layers.begin(), model.layers.end(),
            [&](kiln::plan::LayerRecord const& l) { return l.outputs.at(0) == operand; });
        ASSERT_NE(writer, model.layers.end());
        EXPECT_EQ(writer->name, std::string("move heads of ") + inputs[i]);
        EXPECT_TRUE(kiln::plan::paramsOf<kiln::network::ShuffleParams>(*writer)->reshapesOnly()) << inputs[i];
        EXPECT_EQ(kiln::plan::isView(model, *writer), !converts) << inputs[i];
    }
    size_t const running = std::count_if(model.layers.begin(), model.layers.end(),
        [&](kiln::plan::LayerRecord const& l) { return !kiln::plan::isView(model, l); });
    EXPECT_EQ(running, converts ? 4U : 1U) << "the transposes and reshapes around the attention run";
    auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(*fused);
    ASSERT_NE(params, nullptr);
    std::vector<int32_t> const headsFirst{1, 2, 0, 3};
    std::vector<int32_t> const keysByColumn{1, 2, 3, 0};
    EXPECT_EQ(orderOf(params->queryAxes), headsFirst);
    EXPECT_EQ(orderOf(params->keyAxes), keysByRow ? headsFirst : keysByColumn);
    EXPECT_EQ(orderOf(params->valueAxes), headsFirst);
    EXPECT_EQ(orderOf(params->outputAxes), headsFirst);
}

TEST(CudaAttentionFusion, HeadsSplitAfterTheirTransposeAreReadThroughIt)
{
    for (bool keysByRow : {false, true})
    {
        for (bool fp16 : {false, true})
        {
            SCOPED_TRACE(std::string(keysByRow ? "keys by row" : "keys by column") + (fp16 ? ", FP16" : ", FP32"));
            AttentionCase c{};
            c.headsSplitAfterTranspose = true;
            c.keysByRow = keysByRow;
            expectAttentionReadsSplitHeads(cudaPlanOf(c.maker(), fp16), keysByRow, fp16);
        }
    }
}

TEST(CudaAttentionFusion, HeadsSplitAfterTheirTransposeWithADynamicBatch)
{
    // The batch the split gives is an expression of the inputs' dynamic axis: the reshape moved before the
    // transpose infers it (-1).
    AttentionCase c{};
    c.headsSplitAfterTranspose = true;
    c.dynamicBatch = true;
    c.mask = false;
    std::vector<InputRange> ranges;
    for (char const* name : {"q", "k", "v"})
    {
        InputRange range{name, c.inputDims(name), c.inputDims(name), c.inputDims(name)};
        range.min.d[1] = c.heads;
        range.max.d[1] = 2 * c.batch * c.heads;
        ranges.push_back(range);
    }
    kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), false, {}, ranges);
    expectAttentionReadsSplitHeads(model, false, false);
}

TEST(CudaAttentionFusion, Fp32PlansFuseAsWell)
{
    // FP32 attention runs on the CUDA cores' kernel (attention_fp32.cu), the scores and probabilities in FP32.
    kiln::plan::LayerRecord const* fused = attentionLayer(cudaPlanOf(AttentionCase{}.maker(), false));
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->precision, DataType::kFLOAT);
}

//! The BERT-like case with the Q -> DQ pairs of a quantized export: scales coarse enough that every rounding moves
//! the output (quantizedAttentionMatters checks that on the CPU).
AttentionCase quantizedCase(DataType type)
{
    AttentionCase c{};
    c.quantized = type;
    c.scrambled = true;
    c.nanGuard = true;
    if (type == DataType::kFP8)
    {
        // Model Optimizer's scales: each tensor's largest magnitude over FP8's 448.
        c.queryStep = 0.25F / 448.0F;
        c.keysStep = 1.5F / 448.0F;
        c.valuesStep = 1.0F / 448.0F;
        c.scoresStep = 2.0F / 448.0F;
        c.probabilitiesStep = 1.0F / 448.0F;
        return c;
    }
    c.queryStep = 0.02F;
    c.keysStep = 0.1F;
    c.valuesStep = 0.1F;
    c.scoresStep = 0.05F;
    c.probabilitiesStep = 1.0F / 16.0F;
    return c;
}

//! `c` with BERT-base's attention at 128 tokens: 12 heads of depth 64, q, k and v transposed from the tokens' rows.
AttentionCase withBertBaseHeads(AttentionCase c)
{
    c.tokensMajor = true;
    c.heads = 12;
    c.queries = 128;
    c.keys = 128;
    c.depth = 64;
    c.valueDepth = 64;
    return c;
}

//! The BERT-like case with one INT8 pair alone (`which`: the index of its step among queryStep ... probabilitiesStep),
//! its step coarse, so that the rounding moves most outputs with no other rounding to hide it.
AttentionCase singleRoundingCase(int which)
{
    AttentionCase c{};
    c.quantized = DataType::kINT8;
    c.scrambled = true;
    float AttentionCase::*const steps[] = {&AttentionCase::queryStep, &AttentionCase::keysStep,
        &AttentionCase::valuesStep, &AttentionCase::scoresStep, &AttentionCase::probabilitiesStep};
    float const coarse[] = {0.05F, 0.25F, 0.25F, 0.25F, 0.125F};
    c.*steps[which] = coarse[which];
    return c;
}

TEST(CudaAttentionFusion, QuantizedAttentionTakesItsQdqPairsAsRoundings)
{
    for (DataType type : {DataType::kFP8, DataType::kINT8})
    {
        AttentionCase c = quantizedCase(type);
        c.tokensMajor = true;
        kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), true);
        ASSERT_EQ(model.layers.size(), 1U) << "the five pairs, their scales and the transposes are absorbed";
        auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(model.layers[0]);
        ASSERT_NE(params, nullptr);
        // The query's scaling comes before its rounding: it multiplies the query, not the scores.
        EXPECT_FLOAT_EQ(params->scale, 1.0F);
        EXPECT_FLOAT_EQ(params->queryRounding.factor, 0.25F);
        EXPECT_FLOAT_EQ(params->keysRounding.factor, 1.0F);
        struct Expected
        {
            kiln::network::AttentionRounding const& rounding;
            float step;
        };
        for (Expected const& e :
            {Expected{params->queryRounding, c.queryStep}, Expected{params->keysRounding, c.keysStep},
                Expected{params->valuesRounding, c.valuesStep}, Expected{params->scoresRounding, c.scoresStep},
                Expected{params->probabilitiesRounding, c.probabilitiesStep}})
        {
            EXPECT_EQ(e.rounding.type, type);
            EXPECT_FLOAT_EQ(e.rounding.scale, e.step);
        }
        // The FP32 kernel does not round: an FP32 plan keeps the layers.
        EXPECT_EQ(attentionLayer(cudaPlanOf(c.maker(), false)), nullptr);
    }
    // A pair whose quantized tensor is also an output must be written: the attention stays as it is.
    NetworkMaker const codesOut = withOutputOf(quantizedCase(DataType::kFP8).maker(), "quantize p", "codes");
    EXPECT_EQ(attentionLayer(cudaPlanOf(codesOut, true)), nullptr);
}

TEST(CudaAttentionFusion, RoundingsAreWrittenAndCheckedWithThePlan)
{
    kiln::plan::PlanModel model = cudaPlanOf(quantizedCase(DataType::kINT8).maker(), true);
    ASSERT_EQ(model.layers.size(), 1U);
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(model);
    kiln::plan::PlanModel back;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(bytes.data(), bytes.size(), back, error)) << error;
    auto const* written = kiln::plan::paramsOf<kiln::network::AttentionParams>(model.layers[0]);
    auto const* read = kiln::plan::paramsOf<kiln::network::AttentionParams>(back.layers.at(0));
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(read->probabilitiesRounding.type, DataType::kINT8);
    EXPECT_EQ(read->probabilitiesRounding.scale, written->probabilitiesRounding.scale);
    EXPECT_EQ(read->queryRounding.factor, written->queryRounding.factor);
    // A hand-edited or hostile record: a rounding into FP16, or by a scale of zero, is refused naming the layer.
    for (auto const& edit : {std::function<void(kiln::network::AttentionParams&)>(
                                 [](kiln::network::AttentionParams& p) { p.scoresRounding.type = DataType::kHALF; }),
             std::function<void(kiln::network::AttentionParams&)>(
                 [](kiln::network::AttentionParams& p) { p.valuesRounding.scale = 0.0F; })})
    {
        kiln::plan::PlanModel edited = back;
        auto params = std::make_shared<kiln::network::AttentionParams>(*read);
        edit(*params);
        edited.layers[0].params = params;
        std::string refusal;
        EXPECT_FALSE(kiln::plan::validatePlan(edited, refusal));
        EXPECT_NE(refusal.find("roundings are into INT8 or FP8 by a positive scale"), std::string::npos) << refusal;
        EXPECT_NE(refusal.find(edited.layers[0].name.substr(0, 20)), std::string::npos) << refusal;
    }
}

TEST(CudaAttentionFusion, ChainsThatAreNotAttentionStayAsTheyAre)
{
    // The probabilities are also a network output: they must be written.
    NetworkMaker const probabilitiesOut = withOutputOf(AttentionCase{}.maker(), "softmax", "p");
    EXPECT_EQ(attentionLayer(cudaPlanOf(probabilitiesOut, true)), nullptr);
    // A depth beyond the kernel's 128.
    AttentionCase deep{};
    deep.depth = 160;
    EXPECT_EQ(attentionLayer(cudaPlanOf(deep.maker(), true)), nullptr);
    // A SoftMax over another axis than the keys'.
    auto otherAxis = [](INetworkDefinition& network) {
        ITensor* q = network.addInput("q", DataType::kFLOAT, Dims{3, {2, 4, 8}});
        ITensor* k = network.addInput("k", DataType::kFLOAT, Dims{3, {2, 8, 4}});
        ITensor* v = network.addInput("v", DataType::kFLOAT, Dims{3, {2, 4, 8}});
        ISoftMaxLayer* softmax
            = network.addSoftMax(*network.addMatrixMultiply(*q, Op::kNONE, *k, Op::kNONE)->getOutput(0));
        softmax->setAxes(1U << 1);
        ITensor* y = network.addMatrixMultiply(*softmax->getOutput(0), Op::kNONE, *v, Op::kNONE)->getOutput(0);
        y->setName("y");
        network.markOutput(*y);
    };
    EXPECT_EQ(attentionLayer(cudaPlanOf(otherAxis, true)), nullptr);
}

// ---- The fused kernel on the GPU against the unfused CPU reference ----

//! The fused kernels against the unfused CPU reference: FP16 (attention.cu) and FP32 (attention_fp32.cu).
void expectAgrees(AttentionCase const& c, std::string const& what)
{
    for (bool fp16 : {true, false})
    {
        ASSERT_NE(attentionLayer(cudaPlanOf(c.maker(), fp16)), nullptr) << what << ": the case must fuse";
        auto const cpu = runOn(kiln::Backend::kCPU, c.maker(), c.inputs(), fp16, nullptr, {});
        auto const gpu = runOn(kiln::Backend::kCUDA, c.maker(), c.inputs(), fp16, nullptr, {});
        // In FP16 the unfused reference rounds the scores and probabilities to half; the kernel keeps the scores in
        // FP32 and rounds only the probabilities (to the second product's FP16 operands). In FP32 both sum in
        // another order, and the kernel rescales its running sums.
        Tolerance const tolerance = fp16 ? Tolerance{4e-3, 4e-3} : Tolerance{1e-5, 1e-4};
        expectSameOutput(gpu.at("y"), cpu.at("y"), tolerance, what + (fp16 ? ", fp16" : ", fp32"));
    }
}

TEST(CudaAttention, FusedAgreesWithTheUnfusedCpuReference)
{
    SKIP_WITHOUT_GPU();
    expectAgrees(AttentionCase{}, "BERT-like");
    AttentionCase byRow{};
    byRow.keysByRow = true;
    byRow.divisor = 2.0F;
    expectAgrees(byRow, "keys by row, divided scores");
    AttentionCase vit{};
    vit.mask = false;
    vit.queries = 197;
    vit.keys = 197;
    vit.depth = 64;
    vit.valueDepth = 64;
    vit.batch = 1;
    expectAgrees(vit, "ViT-like, 197 tokens");
    AttentionCase odd{};
    odd.queries = 5;
    odd.keys = 130;
    odd.depth = 40;
    odd.valueDepth = 24;
    expectAgrees(odd, "cross attention, depths not multiples of 16");
    AttentionCase oddValues{};
    oddValues.queries = 33;
    oddValues.keys = 41;
    oddValues.depth = 24;
    oddValues.valueDepth = 7;
    expectAgrees(oddValues, "an odd value depth: the output's columns written one at a time");
    AttentionCase deep{};
    deep.depth = 128;
    deep.valueDepth = 128;
    deep.queries = 70;
    deep.keys = 70;
    expectAgrees(deep, "depth 128");
    AttentionCase guarded{};
    guarded.nanGuard = true;
    guarded.maskWholeRow = true;
    expectAgrees(guarded, "a row masked throughout, NaN guard");
    AttentionCase multiQuery{};
    multiQuery.sharedKeys = true;
    multiQuery.keysByRow = true;
    expectAgrees(multiQuery, "keys and values of one head for every query head");
    AttentionCase shallow{};
    shallow.depth = 8;
    shallow.valueDepth = 8;
    shallow.queries = 65;
    shallow.keys = 65;
    expectAgrees(shallow, "depth 8, one query past a block");
}

//! The share of `a`'s elements that differ from `b`'s beyond FP16 attention's tolerance, and the largest difference.
std::pair<double, double> disagreement(std::vector<float> const& a, std::vector<float> const& b)
{
    size_t beyond = 0;
    double largest = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        double const difference = std::fabs(static_cast<double>(a[i]) - b[i]);
        beyond += difference > 4e-3 + 4e-3 * std::fabs(b[i]) || std::isnan(difference) ? 1 : 0;
        largest = std::max(largest, difference);
    }
    return {static_cast<double>(beyond) / static_cast<double>(a.size()), largest};
}

TEST(CudaAttention, QuantizedAttentionMatters)
{
    // No GPU: the roundings of quantizedCase, and the one of each singleRoundingCase, move many of the unfused CPU
    // reference's outputs beyond the tolerance that QuantizedAttentionAgreesWithTheUnfusedCpuReference holds the fused
    // kernel to, so that test sees a rounding the kernel skipped.
    auto const share = [](AttentionCase const& rounded) {
        AttentionCase plain = rounded;
        plain.quantized = DataType::kFLOAT;
        auto const with = runOn(kiln::Backend::kCPU, rounded.maker(), rounded.inputs(), true, nullptr, {});
        auto const without = runOn(kiln::Backend::kCPU, plain.maker(), plain.inputs(), true, nullptr, {});
        return disagreement(without.at("y").floats(), with.at("y").floats()).first;
    };
    EXPECT_GT(share(quantizedCase(DataType::kFP8)), 0.2);
    EXPECT_GT(share(quantizedCase(DataType::kINT8)), 0.2);
    for (int which = 0; which < 5; ++which)
    {
        EXPECT_GT(share(singleRoundingCase(which)), 0.2) << "rounding " << which;
    }
}

//! Quantized case `c` fused on the GPU against the unfused CPU reference in FP16: where the kernel's scores or
//! probabilities land within rounding of a boundary of a quantized grid (the kernel multiplies the steps of its
//! operands, where the reference multiplies their dequantized values stored in FP16), they take the neighbouring step,
//! so at most 2% of the outputs may lie beyond FP16 attention's tolerance, none further than `largestStep`.
void expectQuantizedAgrees(AttentionCase const& c, double largestStep, std::string const& what)
{
    ASSERT_NE(attentionLayer(cudaPlanOf(c.maker(), true)), nullptr) << what << ": the case must fuse";
    auto const cpu = runOn(kiln::Backend::kCPU, c.maker(), c.inputs(), true, nullptr, {});
    auto const gpu = runOn(kiln::Backend::kCUDA, c.maker(), c.inputs(), true, nullptr, {});
    auto const [share, largest] = disagreement(gpu.at("y").floats(), cpu.at("y").floats());
    EXPECT_LE(share, 0.02) << what;
    EXPECT_LE(largest, largestStep) << what;
}

TEST(CudaAttention, QuantizedAttentionAgreesWithTheUnfusedCpuReference)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kFP8, DataType::kINT8})
    {
        // 20, 100 and 130 keys: one tile, two (the second part full) and three, which stay in shared memory while
        // the kernel passes over them twice (a stage launched for each of the three). The keys are split between
        // warps, whose scores wait in shared memory between the passes.
        for (int64_t keys : {20, 100, 130})
        {
            AttentionCase c = quantizedCase(type);
            c.keys = keys;
            c.queries = keys == 20 ? c.queries : keys - 60;
            c.tokensMajor = keys == 130;
            expectQuantizedAgrees(
                c, 0.1, std::string(type == DataType::kFP8 ? "FP8" : "INT8") + ", " + std::to_string(keys) + " keys");
        }
    }
    // BERT-base's heads at 128 tokens, batches of 8 and 12: two tiles of keys in shared memory, split between two
    // warps and not split (the block's four warps each take queries).
    for (int64_t batch : {8, 12})
    {
        AttentionCase bert = withBertBaseHeads(quantizedCase(DataType::kFP8));
        bert.batch = batch;
        expectQuantizedAgrees(bert, 0.1, "FP8, BERT-base's heads, batch " + std::to_string(batch));
    }
    // ViT-B/16's heads at batch 8: 197 keys are four tiles at depth 64, each resident, with every warp of a block
    // taking queries (the second pass computes the scores again); 400 keys are more tiles than the stages hold,
    // copied and rounded in each pass.
    for (int64_t keys : {197, 400})
    {
        AttentionCase vit = withBertBaseHeads(quantizedCase(DataType::kFP8));
        vit.batch = 8;
        vit.queries = 197;
        vit.keys = keys;
        expectQuantizedAgrees(vit, 0.1, "FP8, ViT-B/16's heads, " + std::to_string(keys) + " keys");
    }
    for (int which = 0; which < 5; ++which)
    {
        // The coarse grids of these cases move an output by up to a step.
        expectQuantizedAgrees(singleRoundingCase(which), 0.3, "INT8, rounding " + std::to_string(which) + " alone");
    }
    // A row masked throughout gives zeros through the NaN guard, as the unfused layers do.
    AttentionCase guarded = quantizedCase(DataType::kFP8);
    guarded.maskWholeRow = true;
    auto const gpu = runOn(kiln::Backend::kCUDA, guarded.maker(), guarded.inputs(), true, nullptr, {});
    auto const cpu = runOn(kiln::Backend::kCPU, guarded.maker(), guarded.inputs(), true, nullptr, {});
    std::vector<float> const y = gpu.at("y").floats();
    EXPECT_EQ(y[0], 0.0F);
    EXPECT_LE(disagreement(y, cpu.at("y").floats()).first, 0.02);
}

TEST(CudaAttention, OperandsReadThroughAbsorbedTransposes)
{
    SKIP_WITHOUT_GPU();
    for (bool keysByRow : {false, true})
    {
        AttentionCase bert = withBertBaseHeads(AttentionCase{});
        bert.keysByRow = keysByRow;
        expectAgrees(bert, keysByRow ? "BERT-like heads, keys by row" : "BERT-like heads, keys by column");
    }
    AttentionCase odd{};
    odd.tokensMajor = true;
    odd.depth = 20; // rows of 20 halves: copied element by element
    odd.valueDepth = 12;
    odd.queries = 33;
    odd.keys = 70;
    expectAgrees(odd, "transposed operands that are not 16-byte aligned");
    for (bool keysByRow : {false, true})
    {
        AttentionCase multihead{};
        multihead.headsSplitAfterTranspose = true;
        multihead.keysByRow = keysByRow;
        multihead.heads = 4;
        multihead.queries = 37;
        multihead.keys = 37;
        expectAgrees(multihead,
            keysByRow ? "heads split after their transpose, keys by row"
                      : "heads split after their transpose, keys by column");
    }
}

TEST(CudaAttentionFusion, OperandsSplitOffOneProductAreReadFromIt)
{
    // timm's ViT: q, k and v split off one transposed product. The transpose, its three slices and their reshapes
    // join the attention, which reads the product [batch, tokens, 3, heads, depth] in place, each operand one index
    // of axis 2, in FP16 and FP32 plans.
    for (bool keysByRow : {false, true})
    {
        AttentionCase c{};
        c.splitProduct = true;
        c.keysByRow = keysByRow;
        c.mask = false;
        for (bool fp16 : {true, false})
        {
            SCOPED_TRACE(std::string(keysByRow ? "keys by row" : "keys by column") + (fp16 ? ", fp16" : ", fp32"));
            kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), fp16);
            kiln::plan::LayerRecord const* layer = attentionLayer(model);
            ASSERT_NE(layer, nullptr);
            auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(*layer);
            std::vector<kiln::network::AttentionPick> const picks{
                params->queryPick, params->keyPick, params->valuePick};
            for (size_t i = 0; i < 3; ++i)
            {
                EXPECT_EQ(model.tensors[static_cast<size_t>(layer->inputs[i])].name, "qkv") << "operand " << i;
                EXPECT_EQ(picks[i].axis, 2) << "operand " << i;
                EXPECT_EQ(picks[i].index, static_cast<int32_t>(i)) << "operand " << i;
            }
            EXPECT_EQ(orderOf(params->queryAxes), (std::vector<int32_t>{0, 3, 1, 4}));
            EXPECT_EQ(orderOf(params->keyAxes),
                keysByRow ? (std::vector<int32_t>{0, 3, 1, 4}) : (std::vector<int32_t>{0, 3, 4, 1}));
            for (kiln::plan::LayerRecord const& other : model.layers)
            {
                EXPECT_NE(other.type, LayerType::kSHUFFLE) << other.name;
                EXPECT_NE(other.type, LayerType::kSLICE) << other.name;
            }
        }
    }
}

TEST(CudaAttentionFusion, PicksAreWrittenAndCheckedWithThePlan)
{
    AttentionCase c{};
    c.splitProduct = true;
    c.mask = false;
    kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), true);
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(model);
    kiln::plan::PlanModel back;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(bytes.data(), bytes.size(), back, error)) << error;
    kiln::plan::LayerRecord const* layer = attentionLayer(back);
    ASSERT_NE(layer, nullptr);
    auto const* read = kiln::plan::paramsOf<kiln::network::AttentionParams>(*layer);
    EXPECT_EQ(read->keyPick.axis, 2);
    EXPECT_EQ(read->keyPick.index, 1);
    EXPECT_EQ(read->valuePick.index, 2);
    // A hand-edited or hostile record: a pick of an axis the tensor lacks, or of a negative index, is refused naming
    // the layer and the operand.
    size_t const at = static_cast<size_t>(layer - back.layers.data());
    for (kiln::network::AttentionPick const pick :
        {kiln::network::AttentionPick{5, 0}, kiln::network::AttentionPick{2, -1}, kiln::network::AttentionPick{-2, 0}})
    {
        kiln::plan::PlanModel edited = back;
        auto params = std::make_shared<kiln::network::AttentionParams>(*read);
        params->valuePick = pick;
        edited.layers[at].params = params;
        std::string refusal;
        EXPECT_FALSE(kiln::plan::validatePlan(edited, refusal)) << pick.axis << ":" << pick.index;
        EXPECT_NE(refusal.find("picks its values as index " + std::to_string(pick.index)), std::string::npos)
            << refusal;
        EXPECT_NE(refusal.find(edited.layers[at].name.substr(0, 20)), std::string::npos) << refusal;
    }
}

TEST(CudaAttention, OperandsReadInPlaceFromTheProductTheyAreSplitFrom)
{
    SKIP_WITHOUT_GPU();
    // Each operand starts 0, 1 or 2 heads' depths into the product's rows (16-byte aligned for the FP16 kernel's
    // vector loads at depth 64; not at depth 20, whose rows are copied element by element); ViT's 197 tokens run on
    // cuDNN where the untimed plan's rule takes them (it does not here, below 256 keys) and on Kiln's kernels.
    AttentionCase vit{};
    vit.splitProduct = true;
    vit.keysByRow = true;
    vit.mask = false;
    vit.batch = 2;
    vit.heads = 4;
    vit.queries = vit.keys = 197;
    vit.depth = vit.valueDepth = 64;
    expectAgrees(vit, "ViT-like, 197 tokens split off one product");
    AttentionCase odd = vit;
    odd.keysByRow = false;
    odd.queries = odd.keys = 37;
    odd.depth = odd.valueDepth = 20;
    expectAgrees(odd, "keys by column, depth 20 split off one product");
    AttentionCase longer = vit;
    longer.queries = longer.keys = 300;
    longer.heads = 2;
    expectAgrees(longer, "300 tokens split off one product (cuDNN's from 256 keys in FP16)");
}

TEST(CudaAttention, LongSequences)
{
    SKIP_WITHOUT_GPU();
    // The kernel gives a block 16, 32 or 64 queries, whichever keeps the multiprocessors busy, the block's other
    // warps splitting the keys: on a GPU of 132 multiprocessors (H100, H200) these cases take each of the three. In
    // FP32 the cases whose blocks of 64 queries fill the multiprocessors (6 and 12 heads, the depth-32 case and the
    // depth-128 ones) run on the tensor cores, their products in 3xTF32, held to the same FP32 tolerance of the CPU
    // reference; the CUDA cores' kernel runs the 2-head case, 4 queries a warp and a second group of warps splitting
    // the keys. In FP16 the unmasked Whisper-like cases run cuDNN's fused attention where cuDNN takes them
    // (cudnn_attention_test.cpp holds Kiln's kernel to the CPU reference at that size too).
    for (int64_t heads : {2, 6, 12})
    {
        AttentionCase whisper{};
        whisper.batch = 1;
        whisper.heads = heads;
        whisper.queries = 1500;
        whisper.keys = 1500;
        whisper.depth = 64;
        whisper.valueDepth = 64;
        whisper.mask = false;
        whisper.queryScale = 0.125F;
        expectAgrees(whisper, "Whisper-like, 1500 frames, " + std::to_string(heads) + " heads");
    }
    // Eight rows a warp at depth 32, with a mask, operands read through transposes and a value depth under 32.
    AttentionCase shallowMany{};
    shallowMany.batch = 1;
    shallowMany.heads = 9;
    shallowMany.queries = 1000;
    shallowMany.keys = 1000;
    shallowMany.depth = 32;
    shallowMany.valueDepth = 20;
    shallowMany.tokensMajor = true;
    expectAgrees(shallowMany, "depth 32, 1000 tokens, 9 heads");
    for (int64_t batch : {2, 4})
    {
        AttentionCase deep{};
        deep.batch = batch;
        deep.heads = 8;
        deep.queries = 1000;
        deep.keys = 999;
        deep.depth = 128;
        deep.valueDepth = 96;
        expectAgrees(deep, "depth 128, batch " + std::to_string(batch));
    }
}

// ---- INetworkDefinition::addAttention (TensorRT 10.15's IAttention) on the fused kernel ----

//! One IAttention over q [2, queryHeads, 24, 32], k and v [2, keyHeads, 24, 32]; optionally causal, or with a BOOL
//! mask [2, 1, 24, 24] as an input.
struct AddedAttention
{
    int64_t queryHeads{4};
    int64_t keyHeads{4};
    bool causal{false};
    bool boolMask{false};

    NetworkMaker maker() const
    {
        AddedAttention const c = *this;
        return [c](INetworkDefinition& network) {
            ITensor* q = network.addInput("q", DataType::kFLOAT, Dims{4, {2, c.queryHeads, 24, 32}});
            ITensor* k = network.addInput("k", DataType::kFLOAT, Dims{4, {2, c.keyHeads, 24, 32}});
            ITensor* v = network.addInput("v", DataType::kFLOAT, Dims{4, {2, c.keyHeads, 24, 32}});
            IAttention* attention = network.addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, c.causal);
            ASSERT_NE(attention, nullptr);
            if (c.boolMask)
            {
                ASSERT_TRUE(attention->setMask(*network.addInput("mask", DataType::kBOOL, Dims{4, {2, 1, 24, 24}})));
            }
            attention->getOutput(0)->setName("y");
            network.markOutput(*attention->getOutput(0));
        };
    }

    std::map<std::string, HostTensor> inputs() const
    {
        std::map<std::string, HostTensor> in;
        in.emplace(
            "q", fromFloats({2, queryHeads, 24, 32}, spread(static_cast<size_t>(2 * queryHeads * 24 * 32), -1, 1)));
        in.emplace(
            "k", fromFloats({2, keyHeads, 24, 32}, spread(static_cast<size_t>(2 * keyHeads * 24 * 32), -1.5F, 1)));
        in.emplace(
            "v", fromFloats({2, keyHeads, 24, 32}, spread(static_cast<size_t>(2 * keyHeads * 24 * 32), -1, 0.5F)));
        if (boolMask)
        {
            // Batch b hides its last 3 + 5b keys from every query: padding, as a BOOL mask says it (true: attend).
            std::vector<uint8_t> allowed(2 * 24 * 24);
            for (size_t i = 0; i < allowed.size(); ++i)
            {
                size_t const b = i / (24 * 24);
                size_t const key = i % 24;
                allowed[i] = key < 24 - 3 - 5 * b ? 1 : 0;
            }
            in.emplace("mask", fromElements({2, 1, 24, 24}, allowed, DataType::kBOOL));
        }
        return in;
    }
};

TEST(CudaAttention, AddAttentionRunsAsTheFusedKernel)
{
    SKIP_WITHOUT_GPU();
    struct Named
    {
        AddedAttention attention;
        std::string what;
    };
    Named const cases[] = {
        {{}, "plain"},
        {{4, 4, true}, "causal"},
        {{4, 4, false, true}, "BOOL mask"},
        {{4, 2, true}, "grouped-query, causal"},
    };
    for (Named const& c : cases)
    {
        for (bool fp16 : {true, false})
        {
            ASSERT_NE(attentionLayer(cudaPlanOf(c.attention.maker(), fp16)), nullptr) << c.what << ": must fuse";
            auto const cpu = runOn(kiln::Backend::kCPU, c.attention.maker(), c.attention.inputs(), fp16, nullptr, {});
            auto const gpu = runOn(kiln::Backend::kCUDA, c.attention.maker(), c.attention.inputs(), fp16, nullptr, {});
            ASSERT_EQ(gpu.count("y"), 1U) << c.what;
            Tolerance const tolerance = fp16 ? Tolerance{4e-3, 4e-3} : Tolerance{1e-5, 1e-4};
            expectSameOutput(
                gpu.at("y"), cpu.at("y"), tolerance, "addAttention, " + c.what + (fp16 ? ", fp16" : ", fp32"));
        }
    }
}

//! Queries enough for the FP32 kernel on the tensor cores (attention_fp32_tensor_cores.cu) to run a batch of 2 x 3
//! heads on a GPU of up to 192 multiprocessors: it takes a problem whose blocks of 64 queries fill them. With fewer
//! queries the CUDA cores' kernel runs.
constexpr int64_t kQueriesForTensorCores = 2048;

TEST(CudaAttention, ARowMaskedThroughoutIsNaNWithoutTheGuard)
{
    SKIP_WITHOUT_GPU();
    for (int64_t queries : {int64_t{20}, kQueriesForTensorCores})
    {
        AttentionCase c{};
        c.maskWholeRow = true;
        c.queries = queries;
        for (bool fp16 : {true, false})
        {
            auto const gpu = runOn(kiln::Backend::kCUDA, c.maker(), c.inputs(), fp16, nullptr, {});
            std::vector<float> const y = gpu.at("y").floats();
            // Batch 0 is masked throughout: 0 / 0 as the unfused SoftMax gives; batch 1 is not.
            size_t const perBatch = y.size() / 2;
            std::string const what = std::to_string(queries) + " queries" + (fp16 ? ", fp16" : ", fp32");
            EXPECT_TRUE(std::isnan(y[0])) << what;
            EXPECT_TRUE(std::isnan(y[perBatch - 1])) << what;
            EXPECT_FALSE(std::isnan(y[perBatch])) << what;
        }
    }
}

TEST(CudaAttention, ANanScoreReachesItsRowWhereverItLies)
{
    // Batch 0's mask is -inf on the keys of the first tile of 64 but one, which is NaN, and 0 on the keys after it:
    // while the kernel folds that tile in, its rows have no maximum yet, and the NaN score must still reach them, as
    // the unfused SoftMax gives it: NaN rows, or zeros through the NaN guard. The CPU's side runs without a GPU.
    std::vector<kiln::Backend> backends{kiln::Backend::kCPU};
    if (gpuPresent())
    {
        backends.push_back(kiln::Backend::kCUDA);
    }
    for (auto [guard, queries] : {std::pair{false, int64_t{20}}, std::pair{true, int64_t{20}},
             std::pair{false, kQueriesForTensorCores}, std::pair{true, kQueriesForTensorCores}})
    {
        AttentionCase c{};
        c.keys = 80;
        c.queries = queries;
        c.nanGuard = guard;
        std::vector<float> mask(static_cast<size_t>(c.batch * c.keys), 0.0F);
        std::fill(mask.begin(), mask.begin() + 64, -std::numeric_limits<float>::infinity());
        mask[5] = std::numeric_limits<float>::quiet_NaN();
        std::map<std::string, HostTensor> inputs = c.inputs();
        inputs.erase("mask");
        inputs.emplace("mask", fromFloats({c.batch, 1, 1, c.keys}, mask));
        for (bool fp16 : {true, false})
        {
            std::string const what = std::string(guard ? "guarded, " : "unguarded, ") + std::to_string(queries)
                + " queries" + (fp16 ? ", fp16" : ", fp32");
            for (kiln::Backend backend : backends)
            {
                std::vector<float> const y = runOn(backend, c.maker(), inputs, fp16, nullptr, {}).at("y").floats();
                size_t const perBatch = y.size() / 2;
                for (size_t i = 0; i < perBatch; ++i)
                {
                    ASSERT_TRUE(guard ? y[i] == 0.0F : std::isnan(y[i]))
                        << what << (backend == kiln::Backend::kCPU ? ", CPU" : ", CUDA") << ", element " << i;
                }
                EXPECT_FALSE(std::isnan(y[perBatch])) << what;
            }
        }
    }
}

} // namespace
