// A BERT-style encoder layer on the fast path against the reference kernels, built as the ONNX parser imports one:
// linear layers of constant weights with their bias (and GELU) fused, multi-head attention (Q K^T, a scale, a mask,
// softmax, times V) through transposing shuffles, residual additions and layer normalization.
#include "fast_path_comparison.h"

#include <cmath>
#include <list>

namespace kiln::test
{
namespace
{

constexpr int64_t kBatch = 2;
constexpr int64_t kSequence = 10;
constexpr int64_t kHidden = 32;
constexpr int64_t kHeads = 4;
constexpr int64_t kHeadSize = kHidden / kHeads;
constexpr int64_t kFeedForward = 4 * kHidden;

//! Builds the layer's network, the same weights each time; keeps them, as the network only points to them.
class EncoderLayer
{
public:
    void add(INetworkDefinition& network)
    {
        mNextSeed = 100;
        ITensor* x = network.addInput("x", DataType::kFLOAT, dimsOf({kBatch, kSequence, kHidden}));
        ITensor* mask = network.addInput("mask", DataType::kFLOAT, dimsOf({kBatch, 1, 1, kSequence}));
        ITensor& q = heads(network, linear(network, *x, kHidden, kHidden, "q"), "q heads");
        ITensor& k = heads(network, linear(network, *x, kHidden, kHidden, "k"), "k heads");
        ITensor& v = heads(network, linear(network, *x, kHidden, kHidden, "v"), "v heads");
        ITensor& scores = product(network, q, k, MatrixOperation::kTRANSPOSE, "scores");
        ITensor& scaled = elementWise(network, scores,
            constant(network, {1, 1, 1, 1}, {1.0F / std::sqrt(static_cast<float>(kHeadSize))}, "scale"),
            ElementWiseOperation::kPROD, "scaled");
        ISoftMaxLayer* softmax
            = network.addSoftMax(elementWise(network, scaled, *mask, ElementWiseOperation::kSUM, "masked"));
        softmax->setAxes(1U << 3);
        softmax->setName("softmax");
        ITensor& context
            = merged(network, product(network, *softmax->getOutput(0), v, MatrixOperation::kNONE, "context"));
        ITensor& attended = linear(network, context, kHidden, kHidden, "attention output");
        ITensor& first = layerNorm(
            network, elementWise(network, attended, *x, ElementWiseOperation::kSUM, "residual 1"), "layer norm 1");
        IActivationLayer* gelu
            = network.addActivation(linear(network, first, kHidden, kFeedForward, "ffn 1"), ActivationType::kGELU_ERF);
        gelu->setName("gelu");
        ITensor& expanded = linear(network, *gelu->getOutput(0), kFeedForward, kHidden, "ffn 2");
        ITensor& output = layerNorm(
            network, elementWise(network, expanded, first, ElementWiseOperation::kSUM, "residual 2"), "layer norm 2");
        output.setName("output");
        network.markOutput(output);
    }

private:
    ITensor& constant(INetworkDefinition& network, Shape const& shape, std::vector<float> values, char const* name)
    {
        mValues.push_back(std::move(values));
        IConstantLayer* layer = network.addConstant(dimsOf(shape), weightsOf(mValues.back()));
        layer->setName(name);
        return *layer->getOutput(0);
    }

    //! A constant of `shape`'s volume reshaped to it, as the parser gives an initializer of lower rank.
    ITensor& reshapedConstant(INetworkDefinition& network, Shape const& shape, std::string const& name)
    {
        int64_t const count = volume(shape);
        std::vector<float> values = randomValues(static_cast<size_t>(count), mNextSeed++);
        ITensor& flat = constant(network, {count}, std::move(values), (name + " values").c_str());
        IShuffleLayer* reshape = network.addShuffle(flat);
        reshape->setReshapeDimensions(dimsOf(shape));
        reshape->setName((name + " reshape").c_str());
        return *reshape->getOutput(0);
    }

    ITensor& elementWise(
        INetworkDefinition& network, ITensor& a, ITensor& b, ElementWiseOperation operation, std::string const& name)
    {
        IElementWiseLayer* layer = network.addElementWise(a, b, operation);
        layer->setName(name.c_str());
        return *layer->getOutput(0);
    }

    ITensor& product(INetworkDefinition& network, ITensor& a, ITensor& b, MatrixOperation opB, std::string const& name)
    {
        IMatrixMultiplyLayer* layer = network.addMatrixMultiply(a, MatrixOperation::kNONE, b, opB);
        layer->setName(name.c_str());
        return *layer->getOutput(0);
    }

    //! x [batch, sequence, in] times constant weights [in, out] plus a bias of `out` values, as MatMul then Add.
    ITensor& linear(INetworkDefinition& network, ITensor& x, int64_t in, int64_t out, std::string const& name)
    {
        ITensor& weights = reshapedConstant(network, {1, in, out}, name + " weights");
        return elementWise(network, product(network, x, weights, MatrixOperation::kNONE, name),
            reshapedConstant(network, {1, 1, out}, name + " bias"), ElementWiseOperation::kSUM, name + " bias");
    }

    //! [batch, sequence, hidden] as [batch, heads, sequence, head size].
    ITensor& heads(INetworkDefinition& network, ITensor& x, char const* name)
    {
        IShuffleLayer* layer = network.addShuffle(x);
        layer->setReshapeDimensions(dimsOf({kBatch, kSequence, kHeads, kHeadSize}));
        layer->setSecondTranspose(Permutation{{0, 2, 1, 3}});
        layer->setName(name);
        return *layer->getOutput(0);
    }

    //! The inverse of heads().
    ITensor& merged(INetworkDefinition& network, ITensor& x)
    {
        IShuffleLayer* layer = network.addShuffle(x);
        layer->setFirstTranspose(Permutation{{0, 2, 1, 3}});
        layer->setReshapeDimensions(dimsOf({kBatch, kSequence, kHidden}));
        layer->setName("merge heads");
        return *layer->getOutput(0);
    }

    ITensor& layerNorm(INetworkDefinition& network, ITensor& x, std::string const& name)
    {
        ITensor& scale = reshapedConstant(network, {1, 1, kHidden}, name + " scale");
        ITensor& bias = reshapedConstant(network, {1, 1, kHidden}, name + " bias");
        INormalizationLayer* layer = network.addNormalization(x, scale, bias, 1U << 2);
        layer->setName(name.c_str());
        return *layer->getOutput(0);
    }

    std::list<std::vector<float>> mValues; //!< the constants' values, which the networks point to
    uint32_t mNextSeed{0};
};

TEST(FastEncoder, BertLayerMatchesTheReferenceKernels)
{
    EncoderLayer encoder;
    std::vector<float> mask(kBatch * kSequence, 0.0F);
    mask[kSequence - 1] = -10000.0F; // the first sequence's last position is padding
    mask[kSequence - 2] = -10000.0F;
    Tensors const inputs{
        {"x", randomTensor({kBatch, kSequence, kHidden}, 1)}, {"mask", fromFloats({kBatch, 1, 1, kSequence}, mask)}};
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        [&](INetworkDefinition& network) { encoder.add(network); }, {inputs}, reductionTolerance(kFeedForward));
    std::map<std::string, bool> fast{{"q + q bias", true}, {"k + k bias", true}, {"v + v bias", true},
        {"attention output + attention output bias", true}, {"layer norm 1", true}, {"ffn 1 + ffn 1 bias + gelu", true},
        {"ffn 2 + ffn 2 bias", true}, {"layer norm 2", true}};
    // The attention from the scores to the context is one layer (plan/passes/attention_fusion.h), named after the
    // layers it replaces.
    for (auto const& [name, marked] : layers)
    {
        if (name.find("scores") != std::string::npos && name.find("softmax") != std::string::npos
            && name.find("context") != std::string::npos)
        {
            fast.emplace(name, true);
        }
    }
    std::vector<std::string> names;
    for (auto const& [name, marked] : fast)
    {
        names.push_back(name);
    }
    EXPECT_EQ(fast.size(), 9U) << "no fused attention layer";
    EXPECT_EQ(layersNamed(layers, names), fast);
}

} // namespace
} // namespace kiln::test
