#include "network/network.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "network/attention_helper.h"
#include "network/layers/conditional.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace kiln::network
{

Network::Network(nvinfer1::IBuilder& builder, nvinfer1::NetworkDefinitionCreationFlags flags)
    : mBuilder(builder)
    , mFlags(flags)
{
}

Network::~Network() noexcept = default;

bool Network::owns(nvinfer1::ITensor const* tensor) const
{
    return std::any_of(mTensors.begin(), mTensors.end(), [&](auto const& t) { return t.get() == tensor; });
}

Tensor* Network::createTensor(std::string name)
{
    mTensors.push_back(std::make_unique<Tensor>(*this, std::move(name), nvinfer1::DataType::kFLOAT, nvinfer1::Dims{}));
    return mTensors.back().get();
}

bool Network::checkInputs(char const* what, std::vector<nvinfer1::ITensor*> const& inputs) const
{
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (inputs[i] == nullptr)
        {
            logError(std::string("INetworkDefinition::") + what + ": input " + std::to_string(i) + " is null");
            return false;
        }
        if (!owns(inputs[i]))
        {
            logError(std::string("INetworkDefinition::") + what + ": input " + std::to_string(i) + " (\""
                + inputs[i]->getName() + "\") does not belong to this network");
            return false;
        }
    }
    return true;
}

nvinfer1::ITensor* Network::addInput(char const* name, nvinfer1::DataType type, nvinfer1::Dims const& dims) noexcept
{
    if (name == nullptr || *name == '\0')
    {
        logError("INetworkDefinition::addInput: the name is null or empty");
        return nullptr;
    }
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        logError(std::string("INetworkDefinition::addInput: rank ") + std::to_string(dims.nbDims) + " of input \""
            + name + "\" is out of range (0 to 8)");
        return nullptr;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < -1)
        {
            logError(std::string("INetworkDefinition::addInput: dimension ") + std::to_string(i) + " of input \"" + name
                + "\" is " + std::to_string(dims.d[i]) + " (use -1 for a dimension given at run time)");
            return nullptr;
        }
    }
    for (Tensor* input : mInputs)
    {
        if (input->name() == name)
        {
            logError(std::string("INetworkDefinition::addInput: there is already an input named \"") + name + "\"");
            return nullptr;
        }
    }
    mTensors.push_back(std::make_unique<Tensor>(*this, name, type, dims));
    Tensor* tensor = mTensors.back().get();
    tensor->setNetworkInput(true);
    mInputs.push_back(tensor);
    invalidate();
    return tensor;
}

void Network::markOutput(nvinfer1::ITensor& tensor) noexcept
{
    if (!owns(&tensor))
    {
        logError(std::string("INetworkDefinition::markOutput: tensor \"") + tensor.getName()
            + "\" does not belong to this network");
        return;
    }
    auto* t = static_cast<Tensor*>(&tensor);
    if (std::find(mOutputs.begin(), mOutputs.end(), t) == mOutputs.end())
    {
        t->setNetworkOutput(true);
        mOutputs.push_back(t);
    }
}

void Network::unmarkOutput(nvinfer1::ITensor& tensor) noexcept
{
    auto* t = static_cast<Tensor*>(&tensor);
    auto it = std::find(mOutputs.begin(), mOutputs.end(), t);
    if (it == mOutputs.end())
    {
        logError(std::string("INetworkDefinition::unmarkOutput: tensor \"") + tensor.getName()
            + "\" is not a network output");
        return;
    }
    t->setNetworkOutput(false);
    mOutputs.erase(it);
}

bool Network::markDebug(nvinfer1::ITensor& tensor) noexcept
{
    if (!owns(&tensor))
    {
        logError(std::string("INetworkDefinition::markDebug: tensor \"") + tensor.getName()
            + "\" does not belong to this network");
        return false;
    }
    static_cast<Tensor&>(tensor).setDebug(true);
    return true;
}

bool Network::unmarkDebug(nvinfer1::ITensor& tensor) noexcept
{
    if (!isDebugTensor(tensor))
    {
        logError(std::string("INetworkDefinition::unmarkDebug: tensor \"") + tensor.getName()
            + "\" is not a debug tensor of this network (markDebug)");
        return false;
    }
    static_cast<Tensor&>(tensor).setDebug(false);
    return true;
}

bool Network::isDebugTensor(nvinfer1::ITensor const& tensor) const noexcept
{
    return owns(&tensor) && static_cast<Tensor const&>(tensor).isDebug();
}

bool Network::markUnfusedTensorsAsDebugTensors() noexcept
{
    mUnfusedTensorsAreDebugTensors = true;
    return true;
}

bool Network::unmarkUnfusedTensorsAsDebugTensors() noexcept
{
    mUnfusedTensorsAreDebugTensors = false;
    return true;
}

int32_t Network::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mLayers.size());
}

nvinfer1::ILayer* Network::getLayer(int32_t index) const noexcept
{
    return index >= 0 && index < getNbLayers() ? &mLayers[index]->api() : nullptr;
}

int32_t Network::getNbInputs() const noexcept
{
    return static_cast<int32_t>(mInputs.size());
}

nvinfer1::ITensor* Network::getInput(int32_t index) const noexcept
{
    return index >= 0 && index < getNbInputs() ? mInputs[index] : nullptr;
}

int32_t Network::getNbOutputs() const noexcept
{
    return static_cast<int32_t>(mOutputs.size());
}

nvinfer1::ITensor* Network::getOutput(int32_t index) const noexcept
{
    return index >= 0 && index < getNbOutputs() ? mOutputs[index] : nullptr;
}

void Network::eraseLayers(std::vector<Layer*> const& layers)
{
    for (Layer* layer : layers)
    {
        for (Tensor* output : layer->outputs())
        {
            std::erase(mOutputs, output);
            std::erase_if(mTensors, [&](auto const& t) { return t.get() == output; });
        }
        std::erase_if(mLayers, [&](auto const& owned) { return owned.get() == layer; });
    }
    invalidate();
}

void Network::removeTensor(nvinfer1::ITensor& tensor) noexcept
{
    auto* t = static_cast<Tensor*>(&tensor);
    if (!owns(t))
    {
        logError("INetworkDefinition::removeTensor: the tensor does not belong to this network");
        return;
    }
    bool const used = std::any_of(mLayers.begin(), mLayers.end(), [&](auto const& layer) {
        return std::find(layer->inputs().begin(), layer->inputs().end(), t) != layer->inputs().end();
    });
    if (used || t->producer() != nullptr)
    {
        logError("INetworkDefinition::removeTensor: \"" + t->name() + "\" is still produced or used by a layer");
        return;
    }
    std::erase(mInputs, t);
    std::erase(mOutputs, t);
    std::erase_if(mTensors, [&](auto const& owned) { return owned.get() == t; });
    invalidate();
}

void Network::setName(char const* name) noexcept
{
    mName = name ? name : "";
}

char const* Network::getName() const noexcept
{
    return mName.c_str();
}

nvinfer1::NetworkDefinitionCreationFlags Network::getFlags() const noexcept
{
    return mFlags;
}

bool Network::getFlag(nvinfer1::NetworkDefinitionCreationFlag flag) const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
}

nvinfer1::IBuilder& Network::getBuilder() const noexcept
{
    return mBuilder;
}

bool Network::topologicalOrder(std::vector<Layer const*>& order, std::string& error) const
{
    // Depth-first, visiting each layer's producers first; a layer met again while
    // still on the path closes a cycle.
    enum class Mark : uint8_t
    {
        kNONE,
        kVISITING,
        kDONE
    };
    std::unordered_map<Layer const*, Mark> marks;
    order.clear();
    std::vector<std::pair<Layer const*, size_t>> stack;
    for (auto const& root : mLayers)
    {
        if (marks[root.get()] != Mark::kNONE)
        {
            continue;
        }
        stack.push_back({root.get(), 0});
        marks[root.get()] = Mark::kVISITING;
        while (!stack.empty())
        {
            auto& [layer, next] = stack.back();
            if (next < layer->inputs().size())
            {
                Tensor const* input = layer->inputs()[next++];
                Layer const* producer = input ? input->producer() : nullptr;
                if (producer == nullptr || marks[producer] == Mark::kDONE)
                {
                    continue;
                }
                if (marks[producer] == Mark::kVISITING)
                {
                    error = "layer \"" + producer->name() + "\" depends on its own output (a cycle through \""
                        + input->name() + "\")";
                    return false;
                }
                marks[producer] = Mark::kVISITING;
                stack.push_back({producer, 0});
                continue;
            }
            marks[layer] = Mark::kDONE;
            order.push_back(layer);
            stack.pop_back();
        }
    }
    return true;
}

namespace
{

//! How many values `input` holds if it can be a shape tensor (INT32/INT64, 0-D or 1-D of at most 8 values, as
//! shapes are); none otherwise.
std::optional<int64_t> shapeValueCount(Tensor const& input)
{
    nvinfer1::Dims const dims = input.getDimensions();
    bool const integers = input.getType() == nvinfer1::DataType::kINT32
        || input.getType() == nvinfer1::DataType::kINT64;
    if (!integers || dims.nbDims > 1)
    {
        return std::nullopt;
    }
    int64_t const count = dims.nbDims == 0 ? 1 : dims.d[0];
    if (count < 0 || count > nvinfer1::Dims::MAX_DIMS)
    {
        return std::nullopt;
    }
    return count;
}

//! A network input's facts: a symbol for each run-time extent and, where it can be a shape tensor, for each value
//! (recorded in `facts` for the builder).
TensorFacts inputFacts(Tensor& input, NetworkFacts& facts)
{
    shape::ExprBuilder& exprs = *facts.exprs;
    nvinfer1::Dims const dims = input.getDimensions();
    TensorFacts result;
    result.type = input.getType();
    result.dims.nbDims = dims.nbDims;
    std::vector<shape::Expr const*> symbols(dims.nbDims, nullptr);
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            symbols[i] = exprs.newSymbol(input.name() + ".d" + std::to_string(i));
            result.dims.d[i] = symbols[i];
        }
        else
        {
            result.dims.d[i] = exprs.constant(dims.d[i]);
        }
    }
    facts.inputSymbols[&input] = std::move(symbols);
    if (std::optional<int64_t> const count = shapeValueCount(input))
    {
        std::vector<shape::Expr const*> valueSymbols;
        result.values.emplace();
        for (int64_t v = 0; v < *count; ++v)
        {
            valueSymbols.push_back(exprs.newSymbol(input.name() + ".v" + std::to_string(v)));
            result.values->push_back(valueSymbols.back());
        }
        facts.inputValueSymbols[&input] = std::move(valueSymbols);
    }
    return result;
}

} // namespace

bool Network::inferAll(NetworkFacts& facts, std::string& error, InferencePhase phase) const
{
    facts = NetworkFacts{};
    shape::ExprBuilder& exprs = *facts.exprs;
    for (Tensor* input : mInputs)
    {
        facts.tensors[input] = inputFacts(*input, facts);
    }
    std::vector<Layer const*> order;
    if (!topologicalOrder(order, error))
    {
        return false;
    }
    for (Layer const* layer : order)
    {
        std::vector<TensorFacts const*> inputFacts;
        for (Tensor* input : layer->inputs())
        {
            auto it = input ? facts.tensors.find(input) : facts.tensors.end();
            if (input != nullptr && it == facts.tensors.end())
            {
                error = "layer \"" + layer->name() + "\": input \"" + input->name()
                    + "\" is neither a network input nor produced by an earlier layer";
                return false;
            }
            inputFacts.push_back(input ? &it->second : nullptr);
        }
        InferenceContext ctx(exprs, std::move(inputFacts), static_cast<int32_t>(layer->outputs().size()), phase);
        shape::SymbolId const firstNewSymbol = exprs.symbolCount();
        if (!layer->params().infer(ctx))
        {
            error
                = "layer \"" + layer->name() + "\": " + (ctx.error().empty() ? "shape inference failed" : ctx.error());
            return false;
        }
        for (size_t i = 0; i < layer->outputs().size(); ++i)
        {
            TensorFacts& out = ctx.outputs()[i];
            if (auto requested = layer->requestedOutputType(static_cast<int32_t>(i)))
            {
                out.type = *requested;
            }
            else if (layer->outputs()[i]->typeRequested())
            {
                out.type = layer->outputs()[i]->getType();
            }
            facts.tensors[layer->outputs()[i]] = std::move(out);
        }
        if (!recordSizeTensors(*layer, firstNewSymbol, facts, error))
        {
            return false;
        }
    }
    return true;
}

bool Network::recordSizeTensors(
    Layer const& layer, shape::SymbolId firstNewSymbol, NetworkFacts& facts, std::string& error) const
{
    for (shape::SymbolId id = firstNewSymbol; id < facts.exprs->symbolCount(); ++id)
    {
        shape::Expr const* size = facts.exprs->symbol(id);
        if (!size->isSizeTensor())
        {
            continue;
        }
        int32_t const index = size->sizeTensorOutputIndex();
        bool const exists = index < static_cast<int32_t>(layer.outputs().size());
        TensorFacts* output = exists ? &facts.tensors.at(layer.outputs()[index]) : nullptr;
        if (output == nullptr || output->dims.nbDims != 0 || !isIndexType(output->type))
        {
            error = "layer \"" + layer.name() + "\": a size tensor is declared at output " + std::to_string(index)
                + ", which must be a 0-D INT32 or INT64 output of the layer holding the data-dependent extent"
                + (exists ? " (it is " + dataTypeName(output->type) + " of rank " + std::to_string(output->dims.nbDims)
                            + ")"
                          : " (the layer has " + std::to_string(layer.outputs().size()) + " outputs)");
            return false;
        }
        // The output's value is the extent: later layers may use it as a shape tensor.
        output->values = std::vector<nvinfer1::IDimensionExpr const*>{size};
        facts.sizeTensorSources[id] = layer.outputs()[index];
    }
    return true;
}

bool Network::refreshShapes() const
{
    if (!mFactsValid)
    {
        std::string error;
        NetworkFacts facts;
        if (!inferAll(facts, error))
        {
            logError("network shape inference: " + error);
            return false;
        }
        mFacts = std::move(facts);
        mFactsValid = true;
    }
    for (auto const& [tensor, facts] : mFacts.tensors)
    {
        auto* mutableTensor = const_cast<Tensor*>(tensor);
        // An input that can be a shape tensor (its values have symbols) reports itself as one. Values of tensors of
        // higher rank are known on their way to a shape tensor (Pad's pads as [rank, 2]), but as TensorRT's, shape
        // tensors are 0-D or 1-D.
        mutableTensor->setShapeTensor(facts.values.has_value() && facts.dims.nbDims <= 1);
        if (tensor->isNetworkInput())
        {
            continue;
        }
        nvinfer1::Dims dims{};
        dims.nbDims = facts.dims.nbDims;
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = facts.dims.d[i]->isConstant() ? facts.dims.d[i]->getConstantValue() : -1;
        }
        mutableTensor->setInferredDimensions(dims);
        if (!tensor->typeRequested())
        {
            mutableTensor->setInferredType(facts.type);
        }
    }
    return true;
}

} // namespace kiln::network
