#include "plan/passes/pointwise_fusion.h"

#include "network/fused/pointwise.h"
#include "network/layers/activation.h"
#include "network/layers/elementwise.h"
#include "network/layers/quantize.h"
#include "network/layers/unary.h"
#include "plan/passes/quantized_patterns.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::plan
{
namespace
{

using network::PointwiseOperand;
using network::PointwiseStep;
using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

//! Layer `layer` as a step of a chain (operands still unset), where it is a floating-point point-wise operation
//! with all its operands given.
std::optional<PointwiseStep> stepOfLayer(LayerRecord const& layer)
{
    PointwiseStep step;
    size_t operands = 1;
    if (auto const* elementWise = paramsOf<network::ElementWiseParams>(layer))
    {
        ElementWiseOperation const op = elementWise->operation;
        bool const arithmetic = op == ElementWiseOperation::kSUM || op == ElementWiseOperation::kPROD
            || op == ElementWiseOperation::kMAX || op == ElementWiseOperation::kMIN || op == ElementWiseOperation::kSUB
            || op == ElementWiseOperation::kDIV || op == ElementWiseOperation::kPOW
            || op == ElementWiseOperation::kFLOOR_DIV;
        if (!arithmetic)
        {
            return std::nullopt;
        }
        step.kind = nvinfer1::LayerType::kELEMENTWISE;
        step.operation = static_cast<int32_t>(op);
        operands = 2;
    }
    else if (auto const* activation = paramsOf<network::ActivationParams>(layer))
    {
        step.kind = nvinfer1::LayerType::kACTIVATION;
        step.operation = static_cast<int32_t>(activation->activation);
        step.alpha = activation->alpha;
        step.beta = activation->beta;
    }
    else if (auto const* unary = paramsOf<network::UnaryParams>(layer))
    {
        UnaryOperation const op = unary->operation;
        if (op == UnaryOperation::kNOT || op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN)
        {
            return std::nullopt; // logic, or a BOOL result
        }
        step.kind = nvinfer1::LayerType::kUNARY;
        step.operation = static_cast<int32_t>(op);
    }
    else
    {
        return std::nullopt;
    }
    bool const given = std::all_of(layer.inputs.begin(), layer.inputs.end(), [](int32_t t) { return t >= 0; });
    if (layer.inputs.size() != operands || !given || layer.outputs.size() != 1 || layer.epilogue.any())
    {
        return std::nullopt;
    }
    return step;
}

//! A Q -> DQ pair that a chain takes as one step (network::quantizationStep): the quantization writes codes that
//! only the dequantization reads.
struct QuantizationPair
{
    size_t quantization;
    PointwiseStep step; //!< its operand still unset
};

class ChainFinder
{
public:
    ChainFinder(PlanModel const& model, PointwiseFusionRules const& rules)
        : mModel(model)
        , mRules(rules)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
        , mTaken(model.layers.size(), false)
        , mKnown(valuesNoRunChanges(model))
    {
        for (size_t l = 0; l < model.layers.size(); ++l)
        {
            mPairs.push_back(pairEndingAt(l));
        }
    }

    std::vector<PointwiseChain> run()
    {
        std::vector<PointwiseChain> chains;
        // From the last layer back: a chain grows from the layer that writes its result towards its operands.
        for (size_t root = mModel.layers.size(); root-- > 0;)
        {
            if (mTaken[root] || !joinsChainOf(root, root))
            {
                continue;
            }
            std::vector<size_t> members = grow(root);
            if (members.size() < 2)
            {
                continue;
            }
            for (size_t l : members)
            {
                mTaken[l] = true;
            }
            std::sort(members.begin(), members.end());
            chains.push_back(PointwiseChain{members, outsideOperands(members)});
        }
        std::reverse(chains.begin(), chains.end());
        return chains;
    }

    //! The layer that runs `chain`.
    LayerRecord fusedLayer(PointwiseChain const& chain) const
    {
        auto params = std::make_shared<network::PointwiseParams>();
        std::map<int32_t, int32_t> operandOf; // tensor -> its PointwiseOperand
        for (size_t i = 0; i < chain.inputs.size(); ++i)
        {
            operandOf[chain.inputs[i]] = PointwiseOperand::input(static_cast<int32_t>(i));
        }
        LayerRecord const& last = mModel.layers[chain.layers.back()];
        LayerRecord record;
        for (size_t l : chain.layers)
        {
            LayerRecord const& layer = mModel.layers[l];
            record.name += (record.name.empty() ? "" : " + ") + layer.name;
            std::optional<PointwiseStep> step = stepOf(l);
            if (!step)
            {
                continue; // a pair's quantization: its dequantization's step stands for both
            }
            std::vector<int32_t> const operands = operandsOf(l);
            step->first = operandOf.at(operands[0]);
            step->second = step->binary() ? operandOf.at(operands[1]) : 0;
            operandOf[layer.outputs[0]] = PointwiseOperand::step(static_cast<int32_t>(params->steps.size()));
            params->steps.push_back(*step);
        }
        record.type = network::kPointwiseLayerType;
        record.params = std::move(params);
        record.precision = last.precision;
        record.inputs = chain.inputs;
        record.outputs = last.outputs;
        record.guards = last.guards;
        return record;
    }

private:
    //! The tensor `t` holds where a constant holds one value.
    std::optional<float> scalar(int32_t t) const
    {
        return scalarConstant(mModel, t, [this](int32_t u) {
            return mProducers[u] >= 0 ? std::optional<size_t>(static_cast<size_t>(mProducers[u])) : std::nullopt;
        });
    }

    //! The Q -> DQ pair that layer `l` ends as its dequantization: both by one constant scale (zero point none or
    //! zero), into INT8 or FP8 codes that only it reads, from and into one floating-point type, under the same guards.
    //! Found once per layer (mPairs).
    std::optional<QuantizationPair> pairEndingAt(size_t l) const
    {
        LayerRecord const& dq = mModel.layers[l];
        if (paramsOf<network::DequantizeParams>(dq) == nullptr || dq.inputs.empty() || dq.inputs[0] < 0
            || dq.outputs.size() != 1 || mProducers[dq.inputs[0]] < 0)
        {
            return std::nullopt;
        }
        int32_t const codes = dq.inputs[0];
        auto const q = static_cast<size_t>(mProducers[codes]);
        LayerRecord const& quantization = mModel.layers[q];
        auto const* params = paramsOf<network::QuantizeParams>(quantization);
        if (params == nullptr || quantization.inputs.empty() || quantization.inputs[0] < 0)
        {
            return std::nullopt;
        }
        auto const valueOf = [this](int32_t t) { return scalar(t); };
        std::optional<float> const scale = perTensorScale(quantization, valueOf);
        nvinfer1::DataType const type = mModel.tensors[codes].type;
        nvinfer1::DataType const valueType = slotType(mModel, quantization, 0);
        bool const codesOk = (type == nvinfer1::DataType::kINT8 || type == nvinfer1::DataType::kFP8)
            && params->toType == type && slotType(mModel, dq, 0) == type && quantization.outputs.size() == 1
            && mReaders[codes].size() == 1 && !isObserved(mModel.tensors[codes]);
        bool const fits = codesOk && scale && perTensorScale(dq, valueOf) == scale && isFloatType(valueType)
            && slotType(mModel, dq, dq.inputs.size()) == valueType && quantization.guards == dq.guards
            && linearThroughout(mModel, quantization);
        if (!fits)
        {
            return std::nullopt;
        }
        return QuantizationPair{q, network::quantizationStep(type, *scale, valueType, 0)};
    }

    //! Layer `l` as a step of a chain (operands unset): a one-layer step, or the step of the Q -> DQ pair it ends.
    std::optional<PointwiseStep> stepOf(size_t l) const
    {
        if (std::optional<QuantizationPair> const& pair = mPairs[l])
        {
            return pair->step;
        }
        return stepOfLayer(mModel.layers[l]);
    }

    //! The tensors layer `l`'s step reads as its operands, in order: the layer's inputs, or a pair's quantized input.
    std::vector<int32_t> operandsOf(size_t l) const
    {
        if (std::optional<QuantizationPair> const& pair = mPairs[l])
        {
            return {mModel.layers[pair->quantization].inputs[0]};
        }
        return stepOfLayer(mModel.layers[l]) ? mModel.layers[l].inputs : std::vector<int32_t>{};
    }

    //! The layers joining a chain with layer `l`: it, and where it ends a Q -> DQ pair, the pair's quantization.
    std::vector<size_t> withPartner(size_t l) const
    {
        std::optional<QuantizationPair> const& pair = mPairs[l];
        return pair ? std::vector<size_t>{pair->quantization, l} : std::vector<size_t>{l};
    }

    //! Whether layer `l` can be a step of the chain whose result layer `root` writes (the rules, precision, guards,
    //! shapes, layout), leaving aside who reads its result.
    bool joinsChainOf(size_t l, size_t root) const
    {
        LayerRecord const& layer = mModel.layers[l];
        LayerRecord const& last = mModel.layers[root];
        if (!stepOf(l) || !mRules.joins(mModel, layer) || layer.precision != last.precision
            || layer.guards != last.guards || !linearThroughout(mModel, layer)
            || mModel.tensors[layer.outputs[0]].values.has_value())
        {
            return false;
        }
        int32_t const result = last.outputs[0];
        if (!sameShapeEveryRun(mModel, mKnown, layer.outputs[0], result))
        {
            return false;
        }
        std::vector<int32_t> const operands = operandsOf(l);
        return std::all_of(operands.begin(), operands.end(), [&](int32_t t) { return broadcastsInto(t, result); });
    }

    //! Whether tensor `t` has `result`'s rank, and along each axis either its extent (at every run) or 1.
    bool broadcastsInto(int32_t t, int32_t result) const
    {
        std::vector<int32_t> const& dims = mModel.tensors[t].dims;
        std::vector<int32_t> const& target = mModel.tensors[result].dims;
        if (dims.size() != target.size())
        {
            return false;
        }
        for (size_t axis = 0; axis < dims.size(); ++axis)
        {
            if (!equalEveryRun(mModel, mKnown, dims[axis], target[axis]) && constantExtent(mModel, t, axis) != 1)
            {
                return false;
            }
        }
        return true;
    }

    //! Whether every layer reading tensor `t` is in `members`, and nothing outside the layers reads it.
    bool readOnlyBy(int32_t t, std::vector<size_t> const& members) const
    {
        if (isObserved(mModel.tensors[t]))
        {
            return false;
        }
        return std::all_of(mReaders[t].begin(), mReaders[t].end(),
            [&](size_t reader) { return std::find(members.begin(), members.end(), reader) != members.end(); });
    }

    bool isMember(size_t l, std::vector<size_t> const& members) const
    {
        return std::find(members.begin(), members.end(), l) != members.end();
    }

    //! The chain ending at `root`: it takes in the producers of its operands while each one's result is read only
    //! by the chain (a result read twice by the chain, as LayerNorm's x - mean is, waits for its second reader). A
    //! Q -> DQ pair joins whole.
    std::vector<size_t> grow(size_t root) const
    {
        std::vector<size_t> members = withPartner(root);
        for (bool grew = true; grew;)
        {
            grew = false;
            for (size_t m = 0; m < members.size(); ++m)
            {
                for (int32_t t : operandsOf(members[m]))
                {
                    int64_t const p = mProducers[t];
                    if (p < 0 || mTaken[p] || isMember(static_cast<size_t>(p), members)
                        || !joinsChainOf(static_cast<size_t>(p), root) || !readOnlyBy(t, members))
                    {
                        continue;
                    }
                    std::vector<size_t> const joining = withPartner(static_cast<size_t>(p));
                    bool const free = std::none_of(
                        joining.begin(), joining.end(), [&](size_t l) { return mTaken[l] || isMember(l, members); });
                    std::vector<size_t> grown = members;
                    grown.insert(grown.end(), joining.begin(), joining.end());
                    if (!free || !withinLimits(grown))
                    {
                        continue;
                    }
                    members = std::move(grown);
                    grew = true;
                }
            }
        }
        return members;
    }

    //! Whether a chain of `members` stays within the backend's limits on steps and outside operands.
    bool withinLimits(std::vector<size_t> const& members) const
    {
        size_t const steps = static_cast<size_t>(
            std::count_if(members.begin(), members.end(), [this](size_t l) { return stepOf(l).has_value(); }));
        return (mRules.maxLayers == 0 || steps <= mRules.maxLayers)
            && (mRules.maxInputs == 0 || outsideOperands(members).size() <= mRules.maxInputs);
    }

    //! The tensors `members` (sorted) read as operands that none of them writes, in the order they are first read.
    std::vector<int32_t> outsideOperands(std::vector<size_t> const& members) const
    {
        std::vector<size_t> sorted = members;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int32_t> outside;
        for (size_t l : sorted)
        {
            for (int32_t t : operandsOf(l))
            {
                bool const inside = mProducers[t] >= 0 && isMember(static_cast<size_t>(mProducers[t]), sorted);
                if (!inside && std::find(outside.begin(), outside.end(), t) == outside.end())
                {
                    outside.push_back(t);
                }
            }
        }
        return outside;
    }

    PlanModel const& mModel;
    PointwiseFusionRules const& mRules;
    std::vector<std::vector<size_t>> mReaders;
    std::vector<int64_t> mProducers;
    std::vector<bool> mTaken; //!< by layer: in a chain already
    //! By expression node: its value where no run changes it (a profile's fixed extents)
    std::vector<std::optional<int64_t>> const mKnown;
    std::vector<std::optional<QuantizationPair>> mPairs; //!< by layer: the Q -> DQ pair it ends as its DQ
};

} // namespace

std::vector<PointwiseChain> findPointwiseChains(PlanModel const& model, PointwiseFusionRules const& rules)
{
    return ChainFinder(model, rules).run();
}

void fusePointwiseChains(PlanModel& model, PointwiseFusionRules const& rules)
{
    ChainFinder finder(model, rules);
    std::vector<PointwiseChain> const chains = finder.run();
    std::vector<LayerRecord> records;
    for (PointwiseChain const& chain : chains)
    {
        records.push_back(finder.fusedLayer(chain));
    }
    std::vector<std::vector<size_t>> readers = readersOf(model);
    std::vector<int64_t> const producers = producersOf(model);
    std::vector<bool> removed(model.layers.size(), false);
    for (size_t c = 0; c < chains.size(); ++c)
    {
        for (size_t l : chains[c].layers)
        {
            // A Q's or DQ's scale and zero point are in its step now: their constants go where nothing else reads them.
            bool const quantizes = paramsOf<network::QuantizeParams>(model.layers[l]) != nullptr
                || paramsOf<network::DequantizeParams>(model.layers[l]) != nullptr;
            if (quantizes)
            {
                removeWithItsConstants(model, l, readers, producers, removed);
            }
            removed[l] = true;
        }
        // The chain runs where its last layer ran: every operand from outside is written before that.
        removed[chains[c].layers.back()] = false;
        model.layers[chains[c].layers.back()] = std::move(records[c]);
    }
    eraseLayers(model, removed);
}

} // namespace kiln::plan
