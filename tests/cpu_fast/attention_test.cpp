// Attention on the fast path (fast/attention.cpp): networks that spell attention as exports do, MatMul of the query
// and the keys, a scale, an added mask, SoftMax and MatMul by the values, become one layer the fast path runs
// (plan/passes/attention_fusion.h), against the reference kernels' unfused layers in double. Blocks of queries that
// leave a shorter last block, keys many enough to shorten the blocks, operands stored with their heads second
// (transposes absorbed), masks broadcast or per row, fully masked rows with and without the NaN guard, a NaN input,
// shapes that change between runs, down to no keys, and query, keys and values split off one transposed product as
// timm's exports do (read in place, or after the transpose where another layer reads a slice).
#include "fast_path_comparison.h"

#include <array>
#include <limits>
#include <string>
#include <optional>
#include <utility>

namespace kiln::test
{
namespace
{

constexpr float kInfinity = std::numeric_limits<float>::infinity();

//! What one attention network is made of: operands [batch, heads, rows, depth] (or [batch, rows, heads, depth] where
//! `headsSecondAfterTranspose`, moved into place by transposes, and the output moved back), a scale, an optional
//! mask input and the NaN guard exports put after SoftMax.
struct AttentionCase
{
    Shape query;  //!< [B, H, Sq, D]
    Shape keys;   //!< [B, H, Sk, D]
    Shape values; //!< [B, H, Sk, Dv]
    std::optional<Shape> mask;
    float scale{0.25F};
    bool headsSecondAfterTranspose{false};
    bool nanGuard{false};
};

//! [B, H, S, D] stored as [B, S, H, D]: the shape of the input that a transpose turns into `shape`.
Shape headsThird(Shape const& shape)
{
    return {shape[0], shape[2], shape[1], shape[3]};
}

class AttentionNetwork
{
public:
    explicit AttentionNetwork(AttentionCase c)
        : mCase(std::move(c))
    {
    }

    void add(INetworkDefinition& network)
    {
        ITensor& q = operand(network, "q", mCase.query);
        ITensor& k = operand(network, "k", mCase.keys);
        ITensor& v = operand(network, "v", mCase.values);
        IMatrixMultiplyLayer* scores
            = network.addMatrixMultiply(q, MatrixOperation::kNONE, k, MatrixOperation::kTRANSPOSE);
        scores->setName("scores");
        mScale = {mCase.scale};
        IConstantLayer* scale = network.addConstant(dimsOf({1, 1, 1, 1}), weightsOf(mScale));
        scale->setName("scale");
        IElementWiseLayer* scaled
            = network.addElementWise(*scores->getOutput(0), *scale->getOutput(0), ElementWiseOperation::kPROD);
        scaled->setName("scaled");
        ITensor* logits = scaled->getOutput(0);
        if (mCase.mask)
        {
            ITensor* mask = network.addInput("mask", DataType::kFLOAT, dimsOf(*mCase.mask));
            IElementWiseLayer* masked = network.addElementWise(*logits, *mask, ElementWiseOperation::kSUM);
            masked->setName("masked");
            logits = masked->getOutput(0);
        }
        ISoftMaxLayer* softmax = network.addSoftMax(*logits);
        softmax->setAxes(1U << 3);
        softmax->setName("softmax");
        ITensor* probabilities = softmax->getOutput(0);
        if (mCase.nanGuard)
        {
            IUnaryLayer* isNaN = network.addUnary(*probabilities, UnaryOperation::kISNAN);
            isNaN->setName("is nan");
            mZero = {0.0F};
            IConstantLayer* zero = network.addConstant(dimsOf({1, 1, 1, 1}), weightsOf(mZero));
            zero->setName("zero");
            ISelectLayer* guard = network.addSelect(*isNaN->getOutput(0), *zero->getOutput(0), *probabilities);
            guard->setName("nan guard");
            probabilities = guard->getOutput(0);
        }
        IMatrixMultiplyLayer* context
            = network.addMatrixMultiply(*probabilities, MatrixOperation::kNONE, v, MatrixOperation::kNONE);
        context->setName("context");
        ITensor* output = context->getOutput(0);
        if (mCase.headsSecondAfterTranspose)
        {
            IShuffleLayer* back = network.addShuffle(*output);
            back->setFirstTranspose(Permutation{{0, 2, 1, 3}});
            back->setName("output heads third");
            output = back->getOutput(0);
        }
        output->setName("output");
        network.markOutput(*output);
    }

    //! Random inputs of seed `seed`, the mask's as `mask` gives them (zeros where empty).
    Tensors inputs(uint32_t seed, std::vector<float> const& mask = {}) const
    {
        auto const stored
            = [&](Shape const& shape) { return mCase.headsSecondAfterTranspose ? headsThird(shape) : shape; };
        Tensors tensors{{"q", scaled(randomTensor(stored(mCase.query), seed), 4.0F)},
            {"k", randomTensor(stored(mCase.keys), seed + 1)}, {"v", randomTensor(stored(mCase.values), seed + 2)}};
        if (mCase.mask)
        {
            tensors.emplace("mask",
                mask.empty() ? fromFloats(*mCase.mask, std::vector<float>(static_cast<size_t>(volume(*mCase.mask))))
                             : fromFloats(*mCase.mask, mask));
        }
        return tensors;
    }

private:
    ITensor& operand(INetworkDefinition& network, char const* name, Shape const& shape)
    {
        if (!mCase.headsSecondAfterTranspose)
        {
            return *network.addInput(name, DataType::kFLOAT, dimsOf(shape));
        }
        ITensor* stored = network.addInput(name, DataType::kFLOAT, dimsOf(headsThird(shape)));
        IShuffleLayer* heads = network.addShuffle(*stored);
        heads->setFirstTranspose(Permutation{{0, 2, 1, 3}});
        heads->setName((std::string(name) + " heads second").c_str());
        return *heads->getOutput(0);
    }

    //! Queries of larger values, so that each row's scores spread as trained attention's do.
    static HostTensor scaled(HostTensor const& tensor, float factor)
    {
        std::vector<float> values = tensor.floats();
        for (float& value : values)
        {
            value *= factor;
        }
        return fromFloats(tensor.shape, values);
    }

    AttentionCase mCase;
    std::vector<float> mScale; //!< the constants' values, which the network points to
    std::vector<float> mZero;
};

//! The fast plan's layers: the fused attention's (named after the layers it replaces) and whether the fast path runs
//! it, or an empty name where no layer took the scores, the SoftMax and the context together.
std::pair<std::string, bool> fusedLayer(std::map<std::string, bool> const& layers)
{
    for (auto const& [name, marked] : layers)
    {
        if (name.find("scores") != std::string::npos && name.find("softmax") != std::string::npos
            && name.find("context") != std::string::npos)
        {
            return {name, marked};
        }
    }
    return {"", false};
}

//! Builds `c`'s network, runs `runs` (inputs by name) on both kernel sets, and checks that the fast path ran the one
//! fused layer.
void expectFusedMatchesReference(
    AttentionCase const& c, std::vector<Tensors> const& runs, int64_t keys, BuildSettings const& settings = {})
{
    AttentionNetwork network(c);
    std::map<std::string, bool> const layers
        = expectFastMatchesReference([&](INetworkDefinition& n) { network.add(n); }, runs,
            reductionTolerance(std::max<int64_t>(keys, 64)), settings);
    auto const [name, marked] = fusedLayer(layers);
    EXPECT_FALSE(name.empty()) << "no fused attention layer";
    EXPECT_TRUE(marked) << name;
    EXPECT_EQ(layers.count("scores") + layers.count("softmax") + layers.count("context"), 0U);
}

TEST(FastAttention, HeadsWithABroadcastMaskMatchTheReferenceKernels)
{
    // 37 queries of 3 heads against 45 keys, BERT's [B, 1, 1, Sk] mask with padding in the second sequence.
    AttentionCase c{{2, 3, 37, 16}, {2, 3, 45, 16}, {2, 3, 45, 24}, Shape{2, 1, 1, 45}};
    AttentionNetwork const network(c);
    std::vector<float> mask(90, 0.0F);
    for (size_t j = 40; j < 45; ++j)
    {
        mask[45 + j] = -10000.0F;
    }
    expectFusedMatchesReference(c, {network.inputs(1, mask), network.inputs(7)}, 45);
}

TEST(FastAttention, ManyQueriesAndKeysRunInBlocksWithAShorterLast)
{
    // 600 keys make blocks of fewer queries than the 1100 (a shorter block last); one head, no mask.
    AttentionCase c{{1, 1, 1100, 8}, {1, 1, 600, 8}, {1, 1, 600, 8}, std::nullopt};
    c.scale = 0.5F;
    expectFusedMatchesReference(c, {AttentionNetwork(c).inputs(3)}, 600);
}

TEST(FastAttention, OperandsStoredWithTheirHeadsThird)
{
    // [B, S, H, D] inputs and output, as exports store them around their transposes: the fused layer reads and
    // writes them strided. A mask per query row.
    AttentionCase c{{2, 4, 19, 8}, {2, 4, 23, 8}, {2, 4, 23, 8}, Shape{2, 1, 19, 23}};
    c.headsSecondAfterTranspose = true;
    std::vector<float> mask = randomValues(2 * 19 * 23, 11);
    expectFusedMatchesReference(c, {AttentionNetwork(c).inputs(5, mask)}, 23);
}

TEST(FastAttention, FullyMaskedRowsAsTheReference)
{
    // Row 3 of the first batch masked to -infinity throughout: NaN probabilities, 0 behind the NaN guard. A NaN in
    // the second batch's query makes its row NaN either way.
    for (bool const guard : {false, true})
    {
        AttentionCase c{{2, 2, 6, 8}, {2, 2, 9, 8}, {2, 2, 9, 8}, Shape{2, 1, 6, 9}};
        c.nanGuard = guard;
        AttentionNetwork const network(c);
        std::vector<float> mask(2 * 6 * 9, 0.0F);
        for (size_t j = 0; j < 9; ++j)
        {
            mask[3 * 9 + j] = -kInfinity;
        }
        Tensors inputs = network.inputs(9, mask);
        std::vector<float> query = inputs.at("q").floats();
        query[(2 * 6 + 4) * 8 + 1] = std::numeric_limits<float>::quiet_NaN(); // batch 1, head 0, row 4
        inputs["q"] = fromFloats(inputs.at("q").shape, query);
        SCOPED_TRACE(guard ? "with the NaN guard" : "without");
        expectFusedMatchesReference(c, {inputs}, 9);
    }
}

TEST(FastAttention, KeysThatChangeBetweenRuns)
{
    // The keys' length from a profile: 5 keys, then 300, then 5 again (each shape's products prepared once), then none
    // (the reference kernel's zeros).
    AttentionCase c{{1, 2, 24, 16}, {1, 2, -1, 16}, {1, 2, -1, 16}, std::nullopt};
    AttentionCase run5 = c;
    run5.keys[2] = run5.values[2] = 5;
    AttentionCase run300 = c;
    run300.keys[2] = run300.values[2] = 300;
    AttentionCase run0 = c;
    run0.keys[2] = run0.values[2] = 0;
    auto const profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* p = builder.createOptimizationProfile();
        for (char const* name : {"k", "v"})
        {
            p->setDimensions(name, OptProfileSelector::kMIN, dimsOf({1, 2, 0, 16}));
            p->setDimensions(name, OptProfileSelector::kOPT, dimsOf({1, 2, 64, 16}));
            p->setDimensions(name, OptProfileSelector::kMAX, dimsOf({1, 2, 512, 16}));
        }
        config.addOptimizationProfile(p);
    };
    expectFusedMatchesReference(c,
        {AttentionNetwork(run5).inputs(21), AttentionNetwork(run300).inputs(22), AttentionNetwork(run5).inputs(23),
            AttentionNetwork(run0).inputs(24)},
        300, profile);
}

//! Attention over query, keys and values split off one tensor [B, N, 3, H, D], as timm's ViT exports it:
//! Transpose(2, 0, 3, 1, 4) -> Split along axis 0 -> Squeeze each -> attention [B, H, N, D] -> output [B, N, H, D].
//! Where `valuesSeen`, the values' slice is a network output as well.
class SplitProductAttention
{
public:
    static constexpr int64_t kBatch = 2;
    static constexpr int64_t kTokens = 13;
    static constexpr int64_t kHeads = 3;
    static constexpr int64_t kDepth = 8;

    explicit SplitProductAttention(bool valuesSeen)
        : mValuesSeen(valuesSeen)
    {
    }

    void add(INetworkDefinition& network)
    {
        ITensor* qkv = network.addInput("qkv", DataType::kFLOAT, dimsOf({kBatch, kTokens, 3, kHeads, kDepth}));
        IShuffleLayer* heads = network.addShuffle(*qkv);
        heads->setFirstTranspose(Permutation{{2, 0, 3, 1, 4}});
        heads->setName("qkv heads first");
        std::array<ITensor*, 3> operands{};
        for (int64_t i = 0; i < 3; ++i)
        {
            ISliceLayer* slice = network.addSlice(*heads->getOutput(0), dimsOf({i, 0, 0, 0, 0}),
                dimsOf({1, kBatch, kHeads, kTokens, kDepth}), dimsOf({1, 1, 1, 1, 1}));
            slice->setName(("split " + std::to_string(i)).c_str());
            IShuffleLayer* squeeze = network.addShuffle(*slice->getOutput(0));
            squeeze->setReshapeDimensions(dimsOf({kBatch, kHeads, kTokens, kDepth}));
            squeeze->setName(("squeeze " + std::to_string(i)).c_str());
            operands[static_cast<size_t>(i)] = squeeze->getOutput(0);
            if (i == 2 && mValuesSeen)
            {
                slice->getOutput(0)->setName("values slice");
                network.markOutput(*slice->getOutput(0));
            }
        }
        IMatrixMultiplyLayer* scores = network.addMatrixMultiply(
            *operands[0], MatrixOperation::kNONE, *operands[1], MatrixOperation::kTRANSPOSE);
        scores->setName("scores");
        mScale = {0.35F};
        IConstantLayer* scale = network.addConstant(dimsOf({1, 1, 1, 1}), weightsOf(mScale));
        IElementWiseLayer* scaled
            = network.addElementWise(*scores->getOutput(0), *scale->getOutput(0), ElementWiseOperation::kPROD);
        ISoftMaxLayer* softmax = network.addSoftMax(*scaled->getOutput(0));
        softmax->setAxes(1U << 3);
        softmax->setName("softmax");
        IMatrixMultiplyLayer* context = network.addMatrixMultiply(
            *softmax->getOutput(0), MatrixOperation::kNONE, *operands[2], MatrixOperation::kNONE);
        context->setName("context");
        IShuffleLayer* back = network.addShuffle(*context->getOutput(0));
        back->setFirstTranspose(Permutation{{0, 2, 1, 3}});
        back->getOutput(0)->setName("output");
        network.markOutput(*back->getOutput(0));
    }

    static Tensors inputs(uint32_t seed)
    {
        return {{"qkv", randomTensor({kBatch, kTokens, 3, kHeads, kDepth}, seed)}};
    }

private:
    bool mValuesSeen;
    std::vector<float> mScale;
};

//! Runs SplitProductAttention(valuesSeen) on the fast path against the reference; gives the fast plan's layers and
//! the fused attention's name, failing where no fused layer runs on the fast path.
std::pair<std::map<std::string, bool>, std::string> splitProductRun(bool valuesSeen, uint32_t seed)
{
    SplitProductAttention network(valuesSeen);
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        [&](INetworkDefinition& n) { network.add(n); }, {SplitProductAttention::inputs(seed)}, reductionTolerance(64));
    auto const [name, marked] = fusedLayer(layers);
    EXPECT_FALSE(name.empty()) << "no fused attention layer";
    EXPECT_TRUE(marked) << name;
    return {layers, name};
}

TEST(FastAttention, QueryKeysAndValuesReadInPlaceFromTheProductTheyAreSplitFrom)
{
    // The transpose, the three slices and the squeezes join the attention, which reads [B, N, 3, H, D] as it lies.
    auto const [layers, name] = splitProductRun(false, 31);
    for (char const* absorbed : {"qkv heads first", "split 0", "split 2", "squeeze 1"})
    {
        EXPECT_NE(name.find(absorbed), std::string::npos) << absorbed << " not in " << name;
        EXPECT_EQ(layers.count(absorbed), 0U) << absorbed;
    }
}

TEST(FastAttention, ASliceReadElsewhereKeepsTheTransposeTheSplitReads)
{
    // The values' slice is also a network output: the transpose stays (the slices are views of it), and the attention
    // still fuses, reading its operands there.
    auto const [layers, name] = splitProductRun(true, 32);
    EXPECT_EQ(name.find("qkv heads first"), std::string::npos) << name;
    EXPECT_EQ(layers.count("qkv heads first"), 1U);
}

} // namespace
} // namespace kiln::test
