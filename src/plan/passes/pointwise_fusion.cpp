#include "plan/passes/pointwise_fusion.h"

#include "network/fused/pointwise.h"
#include "network/layers/activation.h"
#include "network/layers/elementwise.h"
#include "network/layers/unary.h"
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
std::optional<PointwiseStep> stepOf(LayerRecord const& layer)
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

private:
    //! Whether layer `l` can be a step of the chain whose result layer `root` writes (the rules, precision, guards,
    //! shapes, layout), leaving aside who reads its result.
    bool joinsChainOf(size_t l, size_t root) const
    {
        LayerRecord const& layer = mModel.layers[l];
        LayerRecord const& last = mModel.layers[root];
        if (!stepOf(layer) || !mRules.joins(mModel, layer) || layer.precision != last.precision
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
        return std::all_of(
            layer.inputs.begin(), layer.inputs.end(), [&](int32_t t) { return broadcastsInto(t, result); });
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

    //! The chain ending at `root`: it takes in the producers of its operands while each one's result is read only
    //! by the chain (a result read twice by the chain, as LayerNorm's x - mean is, waits for its second reader).
    std::vector<size_t> grow(size_t root) const
    {
        std::vector<size_t> members{root};
        for (bool grew = true; grew;)
        {
            grew = false;
            for (size_t m = 0; m < members.size(); ++m)
            {
                for (int32_t t : mModel.layers[members[m]].inputs)
                {
                    int64_t const p = mProducers[t];
                    if (p < 0 || mTaken[p] || std::find(members.begin(), members.end(), p) != members.end()
                        || !joinsChainOf(static_cast<size_t>(p), root) || !readOnlyBy(t, members))
                    {
                        continue;
                    }
                    members.push_back(static_cast<size_t>(p));
                    if (!withinLimits(members))
                    {
                        members.pop_back();
                        continue;
                    }
                    grew = true;
                }
            }
        }
        return members;
    }

    //! Whether a chain of `members` stays within the backend's limits on layers and outside operands.
    bool withinLimits(std::vector<size_t> const& members) const
    {
        return (mRules.maxLayers == 0 || members.size() <= mRules.maxLayers)
            && (mRules.maxInputs == 0 || outsideOperands(members).size() <= mRules.maxInputs);
    }

    //! The tensors `members` (sorted) read that none of them writes, in the order they are first read.
    std::vector<int32_t> outsideOperands(std::vector<size_t> const& members) const
    {
        std::vector<int32_t> outside;
        for (size_t l : members)
        {
            for (int32_t t : mModel.layers[l].inputs)
            {
                bool const inside = mProducers[t] >= 0
                    && std::find(members.begin(), members.end(), static_cast<size_t>(mProducers[t])) != members.end();
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
};

//! The layer that runs `chain`.
LayerRecord fusedLayer(PlanModel const& model, PointwiseChain const& chain)
{
    auto params = std::make_shared<network::PointwiseParams>();
    std::map<int32_t, int32_t> operandOf; // tensor -> its PointwiseOperand
    for (size_t i = 0; i < chain.inputs.size(); ++i)
    {
        operandOf[chain.inputs[i]] = PointwiseOperand::input(static_cast<int32_t>(i));
    }
    LayerRecord const& last = model.layers[chain.layers.back()];
    LayerRecord record;
    for (size_t l : chain.layers)
    {
        LayerRecord const& layer = model.layers[l];
        PointwiseStep step = *stepOf(layer);
        step.first = operandOf.at(layer.inputs[0]);
        step.second = step.binary() ? operandOf.at(layer.inputs[1]) : 0;
        operandOf[layer.outputs[0]] = PointwiseOperand::step(static_cast<int32_t>(params->steps.size()));
        params->steps.push_back(step);
        record.name += (record.name.empty() ? "" : " + ") + layer.name;
    }
    record.type = network::kPointwiseLayerType;
    record.params = std::move(params);
    record.precision = last.precision;
    record.inputs = chain.inputs;
    record.outputs = last.outputs;
    record.guards = last.guards;
    return record;
}

} // namespace

std::vector<PointwiseChain> findPointwiseChains(PlanModel const& model, PointwiseFusionRules const& rules)
{
    return ChainFinder(model, rules).run();
}

void fusePointwiseChains(PlanModel& model, PointwiseFusionRules const& rules)
{
    std::vector<PointwiseChain> const chains = findPointwiseChains(model, rules);
    std::vector<bool> removed(model.layers.size(), false);
    for (PointwiseChain const& chain : chains)
    {
        LayerRecord record = fusedLayer(model, chain);
        for (size_t l : chain.layers)
        {
            removed[l] = true;
        }
        // The chain runs where its last layer ran: every operand from outside is written before that.
        removed[chain.layers.back()] = false;
        model.layers[chain.layers.back()] = std::move(record);
    }
    eraseLayers(model, removed);
}

} // namespace kiln::plan
