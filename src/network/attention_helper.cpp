#include "network/attention_helper.h"

#include "core/data_type.h"
#include "core/dims_text.h"
#include "core/logging.h"
#include "network/layer.h"
#include "network/layer_type_name.h"
#include "network/network.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

constexpr int32_t kRank = 4; //!< [batch, heads, sequence, head size] for every operand

//! Two extents that may both be known: equal, or one of them unknown (-1) until run time.
bool compatible(int64_t a, int64_t b)
{
    return a < 0 || b < 0 || a == b;
}

//! Adds the layers of one build to the network through its public calls, each failure turned into `error`.
class Builder
{
public:
    explicit Builder(Network& network)
        : mNetwork(network)
    {
    }

    //! A [1, 1, 1, 1] constant of `type` (cast from FLOAT where `type` is another).
    ITensor* scalar(float value, DataType type)
    {
        Dims const ones{kRank, {1, 1, 1, 1}};
        nvinfer1::Weights const weights{DataType::kFLOAT, &value, 1};
        ITensor* constant = output(mNetwork.addConstant(ones, weights), "constant");
        return constant == nullptr || type == DataType::kFLOAT ? constant : cast(*constant, type);
    }

    ITensor* cast(ITensor& input, DataType type)
    {
        return output(mNetwork.addCast(input, type), "cast");
    }

    ITensor* elementWise(ITensor& a, ITensor& b, ElementWiseOperation op)
    {
        return output(mNetwork.addElementWise(a, b, op), "element-wise");
    }

    ITensor* select(ITensor& condition, ITensor& then, ITensor& otherwise)
    {
        return output(mNetwork.addSelect(condition, then, otherwise), "select");
    }

    //! `input` reshaped to `shape` (0 copies the input's extent at that axis, -1 is inferred).
    ITensor* reshape(ITensor& input, Dims const& shape)
    {
        nvinfer1::IShuffleLayer* shuffle = mNetwork.addShuffle(input);
        if (shuffle != nullptr)
        {
            shuffle->setReshapeDimensions(shape);
        }
        return output(shuffle, "reshape");
    }

    //! Key or value [B, Hkv, S, D] with each head repeated `groups` times in place: [B, Hkv * groups, S, D].
    ITensor* repeatHeads(ITensor& input, int64_t groups)
    {
        Dims const in = input.getDimensions();
        ITensor* spread = reshape(input, Dims{5, {0, 0, 1, -1, in.d[3]}});
        if (spread == nullptr)
        {
            return nullptr;
        }
        std::vector<ITensor*> copies(static_cast<size_t>(groups), spread);
        nvinfer1::IConcatenationLayer* concat = mNetwork.addConcatenation(copies.data(), static_cast<int32_t>(groups));
        if (concat != nullptr)
        {
            concat->setAxis(2);
        }
        ITensor* repeated = output(concat, "concatenation");
        return repeated == nullptr ? nullptr : reshape(*repeated, Dims{kRank, {0, in.d[1] * groups, -1, in.d[3]}});
    }

    //! A [1, 1, Sq, Skv] BOOL tensor: true where key j may be attended to from query i (j <= i), for the scores'
    //! last two extents, read from their shape when the network runs.
    ITensor* causalAllowed(ITensor& scores)
    {
        nvinfer1::IShapeLayer* shapeLayer = mNetwork.addShape(scores);
        ITensor* shape = output(shapeLayer, "shape");
        ITensor* rows = shape == nullptr ? nullptr : indices(*shape, 2, Dims{kRank, {1, 1, -1, 1}});
        ITensor* columns = shape == nullptr ? nullptr : indices(*shape, 3, Dims{kRank, {1, 1, 1, -1}});
        if (rows == nullptr || columns == nullptr)
        {
            return nullptr;
        }
        ITensor* later = elementWise(*columns, *rows, ElementWiseOperation::kGREATER);
        return later == nullptr ? nullptr : output(mNetwork.addUnary(*later, nvinfer1::UnaryOperation::kNOT), "unary");
    }

    std::string const& error() const
    {
        return mError;
    }

private:
    //! 0, 1, ..., n - 1 for n = shape[axis], reshaped to `as`.
    ITensor* indices(ITensor& shape, int32_t axis, Dims const& as)
    {
        ITensor* length = output(mNetwork.addSlice(shape, Dims{1, {axis}}, Dims{1, {1}}, Dims{1, {1}}), "slice");
        if (length == nullptr)
        {
            return nullptr;
        }
        nvinfer1::IFillLayer* fill
            = mNetwork.addFill(Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64);
        if (fill != nullptr)
        {
            fill->setAlpha(0.0);
            fill->setBeta(1.0);
            fill->setInput(0, *length);
        }
        ITensor* line = output(fill, "fill");
        return line == nullptr ? nullptr : reshape(*line, as);
    }

    ITensor* output(nvinfer1::ILayer* layer, char const* kind)
    {
        if (layer == nullptr)
        {
            if (mError.empty())
            {
                mError = std::string("its ") + kind + " layer does not build (see the error before)";
            }
            return nullptr;
        }
        return layer->getOutput(0);
    }

    Network& mNetwork;
    std::string mError;
};

} // namespace

AttentionHelper::AttentionHelper(Network& network, std::string name)
    : mNetwork(network)
    , mName(std::move(name))
{
}

bool AttentionHelper::build(Config const& config, Built& built, std::string& error)
{
    ITensor* const operands[3] = {config.query, config.key, config.value};
    char const* const names[3] = {"query", "key", "value"};
    for (int32_t i = 0; i < 3; ++i)
    {
        if (operands[i] == nullptr || !mNetwork.owns(operands[i]))
        {
            error = std::string("the ") + names[i] + " is not a tensor of this network";
            return false;
        }
        Dims const dims = operands[i]->getDimensions();
        if (dims.nbDims != kRank)
        {
            error = std::string("the ") + names[i] + " must be [batch, heads, sequence, head size], not "
                + dimsText(dims);
            return false;
        }
        if (!isFloatType(operands[i]->getType()) || operands[i]->getType() != config.query->getType())
        {
            error = "query, key and value must be FLOAT, HALF or BF16, all of one type";
            return false;
        }
    }
    Dims const q = config.query->getDimensions();
    Dims const k = config.key->getDimensions();
    Dims const v = config.value->getDimensions();
    if (!compatible(q.d[3], k.d[3]) || !compatible(k.d[2], v.d[2]) || !compatible(k.d[1], v.d[1]))
    {
        error = "query " + dimsText(q) + ", key " + dimsText(k) + " and value " + dimsText(v)
            + " do not fit: query and key need one head size, key and value one sequence and head count";
        return false;
    }
    int64_t groups = 1;
    if (q.d[1] >= 0 && k.d[1] >= 0 && q.d[1] != k.d[1])
    {
        if (k.d[1] == 0 || q.d[1] % k.d[1] != 0)
        {
            error = "the query's " + std::to_string(q.d[1]) + " heads are not a multiple of the key's "
                + std::to_string(k.d[1]);
            return false;
        }
        if (k.d[3] < 0 || v.d[3] < 0 || v.d[1] < 0)
        {
            error = "grouped-query attention needs the head counts and sizes known when the network is built";
            return false;
        }
        groups = q.d[1] / k.d[1];
    }
    else if ((q.d[1] < 0) != (k.d[1] < 0))
    {
        error = "the query's and the key's head counts must both be known, or both given at run time";
        return false;
    }
    if (config.mask != nullptr)
    {
        if (config.causal)
        {
            error = "a causal attention takes no mask";
            return false;
        }
        DataType const maskType = config.mask->getType();
        if (!mNetwork.owns(config.mask) || config.mask->getDimensions().nbDims != kRank
            || (maskType != DataType::kBOOL && maskType != config.query->getType()))
        {
            error = "the mask must be a 4-D tensor of this network, BOOL or of the query's type, not "
                + dimsText(config.mask->getDimensions());
            return false;
        }
    }
    auto const first = mNetwork.layers().size();
    Builder b(mNetwork);
    DataType const type = config.query->getType();
    ITensor* keys = config.key;
    ITensor* values = config.value;
    if (groups > 1)
    {
        keys = b.repeatHeads(*config.key, groups);
        values = keys == nullptr ? nullptr : b.repeatHeads(*config.value, groups);
    }
    ITensor* scores = nullptr;
    if (keys != nullptr && values != nullptr)
    {
        nvinfer1::IMatrixMultiplyLayer* product = mNetwork.addMatrixMultiply(
            *config.query, nvinfer1::MatrixOperation::kNONE, *keys, nvinfer1::MatrixOperation::kTRANSPOSE);
        scores = product == nullptr ? nullptr : product->getOutput(0);
    }
    bool const softmax = config.normalization == nvinfer1::AttentionNormalizationOp::kSOFTMAX;
    ITensor* masked = scores;
    if (scores != nullptr && config.mask != nullptr && config.mask->getType() != DataType::kBOOL)
    {
        masked = b.elementWise(*scores, *config.mask, ElementWiseOperation::kSUM);
    }
    else if (scores != nullptr && (config.causal || config.mask != nullptr))
    {
        ITensor* allowed = config.causal ? b.causalAllowed(*scores) : config.mask;
        if (softmax)
        {
            // Added rather than selected, as exports write it: 0 where allowed, -infinity where not.
            ITensor* zero = b.scalar(0.0F, type);
            ITensor* hidden = b.scalar(-std::numeric_limits<float>::infinity(), type);
            ITensor* additive = allowed == nullptr || zero == nullptr || hidden == nullptr
                ? nullptr
                : b.select(*allowed, *zero, *hidden);
            masked = additive == nullptr ? nullptr : b.elementWise(*scores, *additive, ElementWiseOperation::kSUM);
        }
        else
        {
            ITensor* zero = b.scalar(0.0F, type);
            masked = allowed == nullptr || zero == nullptr ? nullptr : b.select(*allowed, *scores, *zero);
        }
    }
    ITensor* probabilities = masked;
    if (masked != nullptr && softmax)
    {
        nvinfer1::ISoftMaxLayer* normalize = mNetwork.addSoftMax(*masked);
        if (normalize != nullptr)
        {
            normalize->setAxes(1U << (kRank - 1));
        }
        probabilities = normalize == nullptr ? nullptr : normalize->getOutput(0);
    }
    for (size_t i = first; i < mNetwork.layers().size(); ++i)
    {
        built.layers.push_back(mNetwork.layers()[i].get());
    }
    if (probabilities == nullptr)
    {
        error = b.error().empty() ? "its layers do not build (see the error before)" : b.error();
        mNetwork.eraseLayers(built.layers);
        built.layers.clear();
        return false;
    }
    built.probabilities = probabilities;
    built.values = values;
    return true;
}

bool AttentionHelper::create(Config const& config, char const* call)
{
    Built built;
    std::string error;
    if (!build(config, built, error))
    {
        logError(std::string(call) + ": " + error);
        return false;
    }
    mOutput = mNetwork.addMatrixMultiply(
        *built.probabilities, nvinfer1::MatrixOperation::kNONE, *built.values, nvinfer1::MatrixOperation::kNONE);
    if (mOutput == nullptr)
    {
        logError(std::string(call) + ": the product of the probabilities and the value does not build");
        mNetwork.eraseLayers(built.layers);
        return false;
    }
    mOutputLayer = mNetwork.layers().back().get();
    mConfig = config;
    mLayers = std::move(built.layers);
    label();
    return true;
}

bool AttentionHelper::rebuild(Config const& config, char const* call)
{
    Built built;
    std::string error;
    if (!build(config, built, error))
    {
        logError(std::string(call) + ": " + error);
        return false;
    }
    ITensor* const oldProbabilities = mOutput->getInput(0);
    ITensor* const oldValues = mOutput->getInput(1);
    mOutput->setInput(0, *built.probabilities);
    mOutput->setInput(1, *built.values);
    NetworkFacts facts;
    if (!mNetwork.inferAll(facts, error))
    {
        mOutput->setInput(0, *oldProbabilities);
        mOutput->setInput(1, *oldValues);
        mNetwork.eraseLayers(built.layers);
        logError(std::string(call) + ": " + error);
        return false;
    }
    mNetwork.eraseLayers(mLayers);
    mConfig = config;
    mLayers = std::move(built.layers);
    label();
    mNetwork.refreshShapes();
    return true;
}

void AttentionHelper::label()
{
    int32_t n = 0;
    std::vector<Layer*> all = mLayers;
    all.push_back(mOutputLayer);
    for (Layer* layer : all)
    {
        std::string const name = mName + " [" + layerTypeName(layer->params().type()) + "] " + std::to_string(n++);
        layer->api().setName(name.c_str());
        layer->api().setMetadata(mMetadata.c_str());
    }
}

bool AttentionHelper::setNormalizationOperation(nvinfer1::AttentionNormalizationOp op) noexcept
{
    auto const value = static_cast<int32_t>(op);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::AttentionNormalizationOp>())
    {
        logError(
            "IAttention::setNormalizationOperation: " + std::to_string(value) + " is not an AttentionNormalizationOp");
        return false;
    }
    Config config = mConfig;
    config.normalization = op;
    return rebuild(config, "IAttention::setNormalizationOperation");
}

bool AttentionHelper::setMask(nvinfer1::ITensor& mask) noexcept
{
    Config config = mConfig;
    config.mask = &mask;
    return rebuild(config, "IAttention::setMask");
}

bool AttentionHelper::setCausal(bool isCausal) noexcept
{
    Config config = mConfig;
    config.causal = isCausal;
    return rebuild(config, "IAttention::setCausal");
}

bool AttentionHelper::setInput(int32_t index, nvinfer1::ITensor& input) noexcept
{
    Config config = mConfig;
    switch (index)
    {
    case 0: config.query = &input; break;
    case 1: config.key = &input; break;
    case 2: config.value = &input; break;
    default:
        logError("IAttention::setInput: index " + std::to_string(index)
            + " is not one of the attention's inputs (0 query, 1 key, 2 value)");
        return false;
    }
    return rebuild(config, "IAttention::setInput");
}

nvinfer1::ITensor* AttentionHelper::getInput(int32_t index) const noexcept
{
    switch (index)
    {
    case 0: return mConfig.query;
    case 1: return mConfig.key;
    case 2: return mConfig.value;
    default: return nullptr;
    }
}

nvinfer1::ITensor* AttentionHelper::getOutput(int32_t index) const noexcept
{
    return index == 0 && mOutput != nullptr ? mOutput->getOutput(0) : nullptr;
}

bool AttentionHelper::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        logError("IAttention::setName: the name is null");
        return false;
    }
    mName = name;
    label();
    return true;
}

bool AttentionHelper::setNormalizationQuantizeScale(nvinfer1::ITensor& /*tensor*/) noexcept
{
    logError("IAttention::setNormalizationQuantizeScale: Kiln has no FP8 or INT8 yet; the scale is not kept");
    return false;
}

bool AttentionHelper::setNormalizationQuantizeToType(nvinfer1::DataType type) noexcept
{
    if (type == DataType::kFLOAT)
    {
        return true;
    }
    logError("IAttention::setNormalizationQuantizeToType: Kiln has no FP8 or INT8 yet; the normalization stays "
             "unquantized");
    return false;
}

bool AttentionHelper::setMetadata(char const* metadata) noexcept
{
    mMetadata = metadata != nullptr ? metadata : "";
    label();
    return true;
}

} // namespace kiln::network

namespace kiln::network
{

nvinfer1::IAttention* Network::addAttention(nvinfer1::ITensor& query, nvinfer1::ITensor& key, nvinfer1::ITensor& value,
    nvinfer1::AttentionNormalizationOp normOp, bool causal) noexcept
{
    auto const op = static_cast<int32_t>(normOp);
    if (op < 0 || op >= nvinfer1::EnumMax<nvinfer1::AttentionNormalizationOp>())
    {
        logError("INetworkDefinition::addAttention: " + std::to_string(op) + " is not an AttentionNormalizationOp");
        return nullptr;
    }
    auto attention
        = std::make_unique<AttentionHelper>(*this, "(Unnamed Attention* " + std::to_string(nextLayerNumber()) + ")");
    AttentionHelper::Config config;
    config.query = &query;
    config.key = &key;
    config.value = &value;
    config.normalization = normOp;
    config.causal = causal;
    if (!attention->create(config, "INetworkDefinition::addAttention"))
    {
        return nullptr;
    }
    mAttentions.push_back(std::move(attention));
    return mAttentions.back().get();
}

} // namespace kiln::network
