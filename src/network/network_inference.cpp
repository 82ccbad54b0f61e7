// Shape and type inference of a network: every layer in order, or only what changed since the last inference.
#include "network/network.h"
#include "network/shape_tensor_inputs.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace kiln::network
{

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
            symbols[i] = exprs.newExtent(input.name() + ".d" + std::to_string(i));
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
        if (!inferLayer(*layer, facts, error, phase))
        {
            return false;
        }
    }
    facts.order = std::move(order);
    for (size_t i = 0; i < facts.order.size(); ++i)
    {
        facts.position[facts.order[i]] = i;
    }
    return true;
}

bool Network::inferLayer(Layer const& layer, NetworkFacts& facts, std::string& error, InferencePhase phase) const
{
    std::vector<TensorFacts const*> inputs;
    for (Tensor* input : layer.inputs())
    {
        auto it = input ? facts.tensors.find(input) : facts.tensors.end();
        if (input != nullptr && it == facts.tensors.end())
        {
            error = "layer \"" + layer.name() + "\": input \"" + input->name()
                + "\" is neither a network input nor produced by an earlier layer";
            return false;
        }
        inputs.push_back(input ? &it->second : nullptr);
    }
    shape::ExprBuilder& exprs = *facts.exprs;
    InferenceContext ctx(exprs, std::move(inputs), static_cast<int32_t>(layer.outputs().size()), phase);
    shape::SymbolId const firstNewSymbol = exprs.symbolCount();
    if (!layer.params().infer(ctx))
    {
        error = "layer \"" + layer.name() + "\": " + (ctx.error().empty() ? "shape inference failed" : ctx.error());
        return false;
    }
    std::vector<TensorFacts>& outputs = ctx.outputs();
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        if (auto requested = layer.requestedOutputType(static_cast<int32_t>(i)))
        {
            outputs[i].type = *requested;
        }
        else if (layer.outputs()[i]->typeRequested())
        {
            outputs[i].type = layer.outputs()[i]->getType();
        }
    }
    if (!recordSizeTensors(layer, firstNewSymbol, outputs, facts, error))
    {
        return false;
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        facts.tensors[layer.outputs()[i]] = std::move(outputs[i]);
    }
    return true;
}

bool Network::recordSizeTensors(Layer const& layer, shape::SymbolId firstNewSymbol, std::vector<TensorFacts>& outputs,
    NetworkFacts& facts, std::string& error) const
{
    std::vector<std::pair<shape::SymbolId, Tensor const*>> sources;
    for (shape::SymbolId id = firstNewSymbol; id < facts.exprs->symbolCount(); ++id)
    {
        shape::Expr const* size = facts.exprs->symbol(id);
        if (!size->isSizeTensor())
        {
            continue;
        }
        int32_t const index = size->sizeTensorOutputIndex();
        bool const exists = index >= 0 && index < static_cast<int32_t>(outputs.size());
        TensorFacts* output = exists ? &outputs[static_cast<size_t>(index)] : nullptr;
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
        sources.emplace_back(id, layer.outputs()[static_cast<size_t>(index)]);
    }
    // Recorded only once every declaration holds, so that a rejected layer leaves no trace in the facts.
    for (auto const& [id, tensor] : sources)
    {
        facts.sizeTensorSources[id] = tensor;
    }
    return true;
}

void Network::invalidate()
{
    mFactsValid = false;
    mStaleLayers.clear();
    mToCopy.clear();
}

void Network::invalidateLayer(Layer const& layer)
{
    // A layer without a position is being made or appended: it is inferred once appended.
    if (mFactsValid && mFacts.position.count(&layer) > 0)
    {
        mStaleLayers.insert(&layer);
    }
}

void Network::inputChanged(Layer const& layer, Tensor const& tensor)
{
    if (!mFactsValid)
    {
        return;
    }
    auto const layerAt = mFacts.position.find(&layer);
    if (layerAt == mFacts.position.end())
    {
        return; // being made or appended: inferred once appended
    }
    Layer const* producer = tensor.producer();
    auto const producerAt = producer != nullptr ? mFacts.position.find(producer) : mFacts.position.end();
    bool const known = mFacts.tensors.count(&tensor) > 0
        && (producer == nullptr || producerAt != mFacts.position.end());
    if (!known || producer == &layer)
    {
        invalidate(); // the full inference says what is wrong (a cycle, an input from elsewhere)
        return;
    }
    if (producer != nullptr && producerAt->second > layerAt->second && !moveToEnd(layer))
    {
        invalidate(); // the order changes: a fresh topological order finds it (or the cycle)
        return;
    }
    mStaleLayers.insert(&layer);
}

bool Network::moveToEnd(Layer const& layer) const
{
    size_t const at = mFacts.position.at(&layer);
    // Layers before it in the order cannot read its outputs; if none after it does, nothing depends on it.
    for (size_t i = at + 1; i < mFacts.order.size(); ++i)
    {
        for (Tensor const* input : mFacts.order[i]->inputs())
        {
            if (input != nullptr && input->producer() == &layer)
            {
                return false;
            }
        }
    }
    mFacts.order.erase(mFacts.order.begin() + static_cast<std::ptrdiff_t>(at));
    mFacts.order.push_back(&layer);
    for (size_t i = at; i < mFacts.order.size(); ++i)
    {
        mFacts.position[mFacts.order[i]] = i;
    }
    return true;
}

bool Network::inferStaleLayers(std::string& error) const
{
    if (mStaleLayers.empty())
    {
        return true;
    }
    size_t first = mFacts.order.size();
    for (Layer const* layer : mStaleLayers)
    {
        first = std::min(first, mFacts.position.at(layer));
    }
    // The order infers producers first, so one pass from the first stale layer reaches all that depend on it.
    std::unordered_set<Tensor const*> changed;
    for (size_t i = first; i < mFacts.order.size(); ++i)
    {
        Layer const* layer = mFacts.order[i];
        bool const affected = mStaleLayers.count(layer) > 0
            || std::any_of(layer->inputs().begin(), layer->inputs().end(),
                [&](Tensor const* input) { return input != nullptr && changed.count(input) > 0; });
        if (!affected)
        {
            continue;
        }
        if (!inferLayer(*layer, mFacts, error, InferencePhase::kDEFINING))
        {
            return false;
        }
        changed.insert(layer->outputs().begin(), layer->outputs().end());
        mToCopy.insert(mToCopy.end(), layer->outputs().begin(), layer->outputs().end());
    }
    mStaleLayers.clear();
    return true;
}

bool Network::updateFacts(std::string& error) const
{
    if (mFactsValid && inferStaleLayers(error))
    {
        return true;
    }
    // Invalidated, or a stale layer fails: infer every layer, so that the error is the one a full inference names.
    mFactsValid = false;
    mStaleLayers.clear();
    mToCopy.clear();
    NetworkFacts facts;
    if (!inferAll(facts, error))
    {
        return false;
    }
    mFacts = std::move(facts);
    mFactsValid = true;
    mCopyAll = true;
    return true;
}

bool Network::inferAppended(Layer const& layer, std::string& error)
{
    std::string staleError;
    bool const inputsKnown = std::all_of(layer.inputs().begin(), layer.inputs().end(),
        [&](Tensor const* input) { return input == nullptr || mFacts.tensors.count(input) > 0; });
    if (mFactsValid && inputsKnown && inferStaleLayers(staleError))
    {
        // The rest of the network keeps its facts: infer the new layer alone.
        if (!inferLayer(layer, mFacts, error, InferencePhase::kDEFINING))
        {
            return false;
        }
        mFacts.position[&layer] = mFacts.order.size();
        mFacts.order.push_back(&layer);
        mToCopy.insert(mToCopy.end(), layer.outputs().begin(), layer.outputs().end());
        return true;
    }
    invalidate();
    return updateFacts(error);
}

bool Network::refreshShapes() const
{
    if (!mFactsValid || !mStaleLayers.empty())
    {
        std::string error;
        if (!updateFacts(error))
        {
            logError("network shape inference: " + error);
            return false;
        }
    }
    if (mCopyAll || !mToCopy.empty())
    {
        mShapeTensorInputs.reset();
    }
    if (mCopyAll)
    {
        for (auto const& [tensor, facts] : mFacts.tensors)
        {
            copyFacts(*tensor, facts);
        }
        mCopyAll = false;
    }
    else
    {
        for (Tensor const* tensor : mToCopy)
        {
            auto const found = mFacts.tensors.find(tensor);
            if (found != mFacts.tensors.end())
            {
                copyFacts(*tensor, found->second);
            }
        }
    }
    mToCopy.clear();
    return true;
}

bool Network::isShapeTensorInput(Tensor const& input) const
{
    if (!mShapeTensorInputs)
    {
        std::vector<Tensor const*> tensors;
        tensors.reserve(mFacts.tensors.size());
        for (auto const& entry : mFacts.tensors)
        {
            tensors.push_back(entry.first);
        }
        mShapeTensorInputs = shapeTensorInputs(mFacts, tensors);
    }
    return mShapeTensorInputs->count(&input) > 0;
}

void Network::copyFacts(Tensor const& tensor, TensorFacts const& facts)
{
    auto& mutableTensor = const_cast<Tensor&>(tensor);
    // A tensor whose values are known while building (from constants, shapes and inputs' value symbols) reports
    // itself as a shape tensor, and an input only where a shape depends on it (Tensor::isShapeTensor). Values of
    // tensors of higher rank are known on their way to a shape tensor (Pad's pads as [rank, 2]), but as TensorRT's,
    // shape tensors are 0-D or 1-D.
    mutableTensor.setShapeTensor(facts.values.has_value() && facts.dims.nbDims <= 1);
    if (tensor.isNetworkInput())
    {
        return;
    }
    nvinfer1::Dims dims{};
    dims.nbDims = facts.dims.nbDims;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        dims.d[i] = facts.dims.d[i]->isConstant() ? facts.dims.d[i]->getConstantValue() : -1;
    }
    mutableTensor.setInferredDimensions(dims);
    if (!tensor.typeRequested())
    {
        mutableTensor.setInferredType(facts.type);
    }
}

} // namespace kiln::network
