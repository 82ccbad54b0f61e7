#include "plan/passes/recurrence_fusion.h"

#include "network/fused/recurrent_sequence.h"
#include "network/layers/activation.h"
#include "network/layers/elementwise.h"
#include "network/layers/loop.h"
#include "network/layers/matrix_multiply.h"
#include "plan/passes/pattern_graph.h"
#include "plan/plan_graph.h"
#include "plan/plan_loops.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace kiln::plan
{
namespace
{

using network::CellFunction;
using network::RecurrentSequenceParams;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

//! A gate's pre-activation in the body: its iterator's slice plus the product of the hidden state with its weights.
struct Gate
{
    size_t iterator{0};
    int32_t weights{-1};
};

//! An activation in the body: its function and the tensor it reads.
struct Activated
{
    CellFunction function;
    int32_t input{-1};
};

//! One loop of the plan matched against the cells, layer by layer from the recurrences' next values back to the
//! iterators. Every layer it accepts is recorded in `mTaken`; the loop fuses only where that is every layer of it.
class LoopMatch
{
public:
    LoopMatch(PatternGraph const& graph, LoopRange const& loop)
        : mGraph(graph)
        , mLoop(loop)
    {
    }

    //! The layer that runs the loop, or none where the loop is not one of the cells.
    std::optional<LayerRecord> match(RecurrenceFusionRules const& rules)
    {
        if (mLoop.whileLimit >= 0 || mLoop.countLimit < 0 || mLoop.parent >= 0 || mLoop.recurrences.empty()
            || mLoop.recurrences.size() > 2)
        {
            return std::nullopt;
        }
        take(static_cast<size_t>(mLoop.countLimit));
        if (!findStates())
        {
            return std::nullopt;
        }
        bool const cellMatched = mCell >= 0 ? matchLstm()
                                            : attempt(&LoopMatch::matchGru) || attempt(&LoopMatch::matchRnn);
        if (!cellMatched || !matchIterators() || !matchOutputs() || !everyLayerTaken())
        {
            return std::nullopt;
        }
        std::optional<nvinfer1::DataType> const precision = bodyPrecision();
        std::optional<int64_t> const hidden = hiddenSize();
        if (!precision || !hidden || !rules.runs(mParams, *precision, *hidden))
        {
            return std::nullopt;
        }
        return record(*precision);
    }

    std::vector<size_t> taken() const
    {
        return std::vector<size_t>(mTaken.begin(), mTaken.end());
    }

private:
    bool inLoop(size_t l) const
    {
        return l >= mLoop.begin && l < mLoop.end;
    }
    void take(size_t l)
    {
        mTaken.insert(l);
    }
    //! The loop's layer that writes `t`, where it is of `type`.
    std::optional<size_t> bodyLayer(int32_t t, LayerType type) const
    {
        std::optional<size_t> const l = mGraph.producer(t);
        return l && inLoop(*l) && mGraph.layer(*l).type == type ? l : std::nullopt;
    }
    //! Whether `t` is computed outside the loop (a constant, an input, or a layer before it).
    bool outside(int32_t t) const
    {
        std::optional<size_t> const l = mGraph.producer(t);
        return t >= 0 && (!l || !inLoop(*l));
    }

    //! Runs `matcher`, forgetting the layers it took where it fails.
    bool attempt(bool (LoopMatch::*matcher)())
    {
        std::set<size_t> const taken = mTaken;
        if ((this->*matcher)())
        {
            return true;
        }
        mTaken = taken;
        mHiddenBias = -1;
        return false;
    }

    //! H, where every tensor the layer would read has the extents the cell needs, H known when building: gates'
    //! inputs [S, B, H], weights [H, H], states [B, H], the bias [1, H]. Where one broadcasts instead, the loop stays.
    std::optional<int64_t> hiddenSize() const
    {
        PlanModel const& model = mGraph.model();
        std::optional<std::vector<int64_t>> const weights = constantDims(model, mGates[0].weights);
        if (!weights || weights->size() != 2 || (*weights)[0] != (*weights)[1])
        {
            return std::nullopt;
        }
        int64_t const h = (*weights)[0];
        auto const lastExtentIs = [&](int32_t t, size_t rank) {
            return model.tensors[static_cast<size_t>(t)].dims.size() == rank && constantExtent(model, t, rank - 1) == h;
        };
        bool fits = lastExtentIs(mGraph.layer(static_cast<size_t>(mHidden)).inputs[0], 2)
            && (mCell < 0 || lastExtentIs(mGraph.layer(static_cast<size_t>(mCell)).inputs[0], 2))
            && (mHiddenBias < 0 || constantDims(model, mHiddenBias) == std::vector<int64_t>{1, h});
        for (Gate const& gate : mGates)
        {
            fits = fits && constantDims(model, gate.weights) == *weights
                && lastExtentIs(mGraph.layer(gate.iterator).inputs[0], 3);
        }
        return fits ? std::optional<int64_t>(h) : std::nullopt;
    }

    //! The hidden state's recurrence (the one the products read) and the cell state's, where there are two.
    bool findStates()
    {
        for (size_t r : mLoop.recurrences)
        {
            int32_t const value = mGraph.layer(r).outputs[0];
            bool const readByProduct = std::any_of(mGraph.readers(value).begin(), mGraph.readers(value).end(),
                [&](size_t reader) { return mGraph.layer(reader).type == LayerType::kMATRIX_MULTIPLY; });
            (readByProduct ? mHidden : mCell) = static_cast<int64_t>(r);
        }
        if (mHidden < 0 || (mLoop.recurrences.size() == 2 && mCell < 0))
        {
            return false;
        }
        take(static_cast<size_t>(mHidden));
        if (mCell >= 0)
        {
            take(static_cast<size_t>(mCell));
        }
        return true;
    }
    int32_t hiddenValue() const
    {
        return mGraph.layer(static_cast<size_t>(mHidden)).outputs[0];
    }
    int32_t hiddenNext() const
    {
        return mGraph.layer(static_cast<size_t>(mHidden)).inputs[1];
    }
    int32_t cellValue() const
    {
        return mGraph.layer(static_cast<size_t>(mCell)).outputs[0];
    }
    int32_t cellNext() const
    {
        return mGraph.layer(static_cast<size_t>(mCell)).inputs[1];
    }

    //! `t` as the body's element-wise `operation` of two operands, each of which one of the two orders of the operands
    //! gives to `first` and `second`; those that accept them are taken. Operands are tried in both orders.
    template <typename First, typename Second>
    bool operands(int32_t t, ElementWiseOperation operation, First const& first, Second const& second)
    {
        std::optional<size_t> const l = bodyLayer(t, LayerType::kELEMENTWISE);
        LayerRecord const* layer = mGraph.elementWise(l, operation);
        if (layer == nullptr)
        {
            return false;
        }
        std::set<size_t> const before = mTaken;
        for (int32_t order = 0; order < 2; ++order)
        {
            int32_t const a = layer->inputs[order];
            int32_t const b = layer->inputs[1 - order];
            if (first(a) && second(b))
            {
                take(*l);
                return true;
            }
            mTaken = before;
            if (operation == ElementWiseOperation::kSUB)
            {
                break; // not commutative
            }
        }
        return false;
    }

    //! The loop's iterator that writes `t`.
    std::optional<size_t> iteratorOf(int32_t t) const
    {
        std::optional<size_t> const l = bodyLayer(t, LayerType::kITERATOR);
        bool const ours = l && std::find(mLoop.iterators.begin(), mLoop.iterators.end(), *l) != mLoop.iterators.end();
        return ours ? l : std::nullopt;
    }

    //! `t` as the product of the hidden state with transposed weights computed outside the loop: the weights.
    std::optional<int32_t> productOfHidden(int32_t t)
    {
        std::optional<size_t> const l = bodyLayer(t, LayerType::kMATRIX_MULTIPLY);
        if (!l)
        {
            return std::nullopt;
        }
        LayerRecord const& layer = mGraph.layer(*l);
        auto const* params = paramsOf<network::MatrixMultiplyParams>(layer);
        bool const fits = params != nullptr && params->op0 == nvinfer1::MatrixOperation::kNONE
            && params->op1 == nvinfer1::MatrixOperation::kTRANSPOSE && layer.inputs.size() == 2
            && layer.inputs[0] == hiddenValue() && outside(layer.inputs[1]);
        if (!fits)
        {
            return std::nullopt;
        }
        take(*l);
        return layer.inputs[1];
    }

    //! `t` as a gate's pre-activation: an iterator's slice plus the hidden state's product.
    std::optional<Gate> gateOf(int32_t t)
    {
        Gate gate;
        auto const iterator = [&](int32_t operand) {
            std::optional<size_t> const l = iteratorOf(operand);
            gate.iterator = l.value_or(0);
            return l.has_value();
        };
        auto const product = [&](int32_t operand) {
            std::optional<int32_t> const weights = productOfHidden(operand);
            gate.weights = weights.value_or(-1);
            return weights.has_value();
        };
        if (!operands(t, ElementWiseOperation::kSUM, iterator, product))
        {
            return std::nullopt;
        }
        take(gate.iterator);
        return gate;
    }

    //! `t` as the body's activation of one input.
    std::optional<Activated> activationOf(int32_t t)
    {
        std::optional<size_t> const l = bodyLayer(t, LayerType::kACTIVATION);
        auto const* params = l ? paramsOf<network::ActivationParams>(mGraph.layer(*l)) : nullptr;
        if (params == nullptr || mGraph.layer(*l).inputs.size() != 1)
        {
            return std::nullopt;
        }
        take(*l);
        return Activated{CellFunction{params->activation, params->alpha, params->beta}, mGraph.layer(*l).inputs[0]};
    }

    //! `t` as function `f` (set by the first gate matched) of gate `index`'s pre-activation.
    bool activatedGate(int32_t t, int32_t index, std::optional<CellFunction>& f)
    {
        std::optional<Activated> const activated = activationOf(t);
        if (!activated || (f && !(*f == activated->function)))
        {
            return false;
        }
        std::optional<Gate> const gate = gateOf(activated->input);
        if (!gate)
        {
            return false;
        }
        f = activated->function;
        mGates[static_cast<size_t>(index)] = *gate;
        return true;
    }

    // h' = f(a_i)
    bool matchRnn()
    {
        mGates.assign(1, Gate{});
        std::optional<CellFunction> f;
        if (!activatedGate(hiddenNext(), 0, f))
        {
            return false;
        }
        mParams.gates = RecurrentSequenceParams::kRnnGates;
        mParams.gateFunction = *f;
        return true;
    }

    // h' = n + z * (h - n), n = g(x_h + r * (h . R_h^T [+ bias])), z and r gates of f.
    bool matchGru()
    {
        mGates.assign(3, Gate{});
        std::optional<CellFunction> f;
        int32_t candidate = -1;
        auto const candidateTensor = [&](int32_t t) {
            candidate = t;
            return true;
        };
        auto const difference = [&](int32_t t) {
            return operands(
                t, ElementWiseOperation::kSUB, [&](int32_t a) { return a == hiddenValue(); },
                [&](int32_t b) { return b == candidate; });
        };
        auto const update = [&](int32_t t) { return activatedGate(t, 0, f); };
        auto const scaledDifference
            = [&](int32_t t) { return operands(t, ElementWiseOperation::kPROD, update, difference); };
        if (!operands(hiddenNext(), ElementWiseOperation::kSUM, candidateTensor, scaledDifference))
        {
            return false;
        }
        std::optional<Activated> const n = activationOf(candidate);
        if (!n)
        {
            return false;
        }
        auto const resetTimesProduct = [&](int32_t t) {
            auto const reset = [&](int32_t u) { return activatedGate(u, 1, f); };
            auto const product = [&](int32_t u) {
                std::optional<int32_t> const weights = productOfHidden(u);
                mGates[2].weights = weights.value_or(-1);
                return weights.has_value();
            };
            auto const bias = [&](int32_t u) {
                mHiddenBias = u;
                return outside(u);
            };
            // The product, or the product plus the bias kept for the loop.
            auto const recurrent = [&](int32_t u) {
                mHiddenBias = -1;
                return product(u) || operands(u, ElementWiseOperation::kSUM, product, bias);
            };
            return operands(t, ElementWiseOperation::kPROD, reset, recurrent);
        };
        auto const iterator = [&](int32_t t) {
            std::optional<size_t> const l = iteratorOf(t);
            mGates[2].iterator = l.value_or(0);
            return l.has_value();
        };
        if (!operands(n->input, ElementWiseOperation::kSUM, iterator, resetTimesProduct))
        {
            return false;
        }
        take(mGates[2].iterator);
        mParams.gates = RecurrentSequenceParams::kGruGates;
        mParams.gateFunction = *f;
        mParams.candidateFunction = n->function;
        return true;
    }

    // c' = f_ * c + i * n, h' = o * h_(c'); i, o, f_ gates of f, n of g.
    bool matchLstm()
    {
        mGates.assign(4, Gate{});
        std::optional<CellFunction> f;
        auto const output = [&](int32_t t) { return activatedGate(t, 1, f); };
        auto const squashedCell = [&](int32_t t) {
            std::optional<Activated> const activated = activationOf(t);
            if (!activated || activated->input != cellNext())
            {
                return false;
            }
            mParams.outputFunction = activated->function;
            return true;
        };
        if (!operands(hiddenNext(), ElementWiseOperation::kPROD, output, squashedCell))
        {
            return false;
        }
        auto const forgotten = [&](int32_t t) {
            return operands(
                t, ElementWiseOperation::kPROD, [&](int32_t a) { return activatedGate(a, 2, f); },
                [&](int32_t b) { return b == cellValue(); });
        };
        auto const added = [&](int32_t t) {
            // The input gate is the operand of the gates' function; where both are, the product is the same either way.
            auto const input = [&](int32_t a) { return activatedGate(a, 0, f); };
            auto const candidate = [&](int32_t b) {
                std::optional<Activated> const activated = activationOf(b);
                std::optional<Gate> const gate = activated ? gateOf(activated->input) : std::nullopt;
                if (!gate)
                {
                    return false;
                }
                mGates[3] = *gate;
                mParams.candidateFunction = activated->function;
                return true;
            };
            return operands(t, ElementWiseOperation::kPROD, input, candidate);
        };
        if (!operands(cellNext(), ElementWiseOperation::kSUM, forgotten, added))
        {
            return false;
        }
        mParams.gates = RecurrentSequenceParams::kLstmGates;
        mParams.gateFunction = *f;
        return true;
    }

    //! Every iterator reads its gate's input along axis 0, all in one direction, one iterator per gate.
    bool matchIterators()
    {
        std::set<size_t> used;
        for (Gate const& gate : mGates)
        {
            auto const* params = paramsOf<network::IteratorParams>(mGraph.layer(gate.iterator));
            if (params == nullptr || params->axis != 0 || !used.insert(gate.iterator).second
                || params->reverse != paramsOf<network::IteratorParams>(mGraph.layer(mGates[0].iterator))->reverse)
            {
                return false;
            }
        }
        mParams.iteratesBackwards = paramsOf<network::IteratorParams>(mGraph.layer(mGates[0].iterator))->reverse;
        return used.size() == mLoop.iterators.size();
    }

    //! The stacked hidden states (whose length is the trip limit's), and the last hidden and cell states.
    bool matchOutputs()
    {
        int32_t const tripCount = mGraph.layer(static_cast<size_t>(mLoop.countLimit)).inputs[0];
        for (size_t l : mLoop.outputs)
        {
            LayerRecord const& layer = mGraph.layer(l);
            auto const* params = paramsOf<network::LoopOutputParams>(layer);
            if (params == nullptr)
            {
                return false;
            }
            int32_t const value = layer.inputs[0];
            bool const last = params->kind == nvinfer1::LoopOutput::kLAST_VALUE;
            if (value == hiddenNext() && !last && params->axis == 0 && layer.inputs.size() == 2
                && layer.inputs[1] == tripCount && mStacked < 0)
            {
                mStacked = layer.outputs[0];
                mParams.stacksBackwards = params->kind == nvinfer1::LoopOutput::kREVERSE;
            }
            else if (value == hiddenNext() && last && mLastHidden < 0)
            {
                mLastHidden = layer.outputs[0];
            }
            else if (mCell >= 0 && value == cellNext() && last && mLastCell < 0)
            {
                mLastCell = layer.outputs[0];
            }
            else
            {
                return false;
            }
            take(l);
        }
        return mStacked >= 0;
    }

    //! Whether the match took the whole loop, and none of what it replaces is a tensor the application observes.
    bool everyLayerTaken() const
    {
        if (mTaken.size() != mLoop.end - mLoop.begin)
        {
            return false;
        }
        for (size_t l : mTaken)
        {
            LayerRecord const& layer = mGraph.layer(l);
            bool const output = layer.type == LayerType::kLOOP_OUTPUT;
            bool const observed = std::any_of(layer.outputs.begin(), layer.outputs.end(),
                [&](int32_t t) { return isObserved(mGraph.model().tensors[static_cast<size_t>(t)]); });
            if (!inLoop(l) || (observed && !output) || layer.guards != mGraph.layer(mLoop.begin).guards)
            {
                return false;
            }
        }
        return true;
    }

    //! The precision the body computes in, where its layers compute alike in FLOAT or HALF.
    std::optional<nvinfer1::DataType> bodyPrecision() const
    {
        std::vector<size_t> body;
        for (size_t l : mTaken)
        {
            if (mGraph.layer(l).precision)
            {
                body.push_back(l);
            }
        }
        if (body.empty() || !mGraph.alike(body))
        {
            return std::nullopt;
        }
        nvinfer1::DataType const precision = *mGraph.layer(body.front()).precision;
        bool const supported = precision == nvinfer1::DataType::kFLOAT || precision == nvinfer1::DataType::kHALF;
        return supported ? std::optional<nvinfer1::DataType>(precision) : std::nullopt;
    }

    LayerRecord record(nvinfer1::DataType precision)
    {
        mParams.writesLastHidden = mLastHidden >= 0;
        mParams.writesLastCell = mLastCell >= 0;
        LayerRecord record;
        record.type = network::kRecurrentSequenceLayerType;
        LayerRecord const& hidden = mGraph.layer(static_cast<size_t>(mHidden));
        record.name = hidden.name + " and the " + std::to_string(mTaken.size() - 1) + " other layers of its loop";
        record.inputs.assign(mParams.inputCount(), -1);
        for (int32_t g = 0; g < mParams.gates; ++g)
        {
            Gate const& gate = mGates[static_cast<size_t>(g)];
            record.inputs[mParams.inputSlot(g)] = mGraph.layer(gate.iterator).inputs[0];
            record.inputs[mParams.weightsSlot(g)] = gate.weights;
        }
        record.inputs[mParams.initialHiddenSlot()] = hidden.inputs[0];
        if (mCell >= 0)
        {
            record.inputs[mParams.initialCellSlot()] = mGraph.layer(static_cast<size_t>(mCell)).inputs[0];
        }
        record.inputs[mParams.hiddenBiasSlot()] = mHiddenBias;
        record.outputs.push_back(mStacked);
        for (int32_t t : {mLastHidden, mLastCell})
        {
            if (t >= 0)
            {
                record.outputs.push_back(t);
            }
        }
        record.params = std::make_shared<RecurrentSequenceParams>(mParams);
        record.precision = precision;
        // Every tensor read and written in the body's type: the runtime converts an initial state kept in another.
        record.ioTypes.assign(record.inputs.size() + record.outputs.size(), precision);
        record.guards = hidden.guards;
        return record;
    }

    PatternGraph const& mGraph;
    LoopRange const& mLoop;
    std::set<size_t> mTaken;
    int64_t mHidden{-1};
    int64_t mCell{-1};
    std::vector<Gate> mGates;
    int32_t mHiddenBias{-1};
    int32_t mStacked{-1};
    int32_t mLastHidden{-1};
    int32_t mLastCell{-1};
    RecurrentSequenceParams mParams;
};

} // namespace

size_t fuseRecurrences(PlanModel& model, RecurrenceFusionRules const& rules)
{
    std::vector<LoopRange> loops;
    std::vector<int32_t> innermost;
    std::string error;
    if (!findLoops(model, true, loops, innermost, error))
    {
        return 0; // the builder checked the loops already; a plan it would refuse is left as it is
    }
    PatternGraph graph(model);
    size_t fused = 0;
    for (LoopRange const& loop : loops)
    {
        LoopMatch match(graph, loop);
        std::optional<LayerRecord> record = match.match(rules);
        if (record)
        {
            graph.replace(match.taken(), loop.begin, std::move(*record));
            ++fused;
        }
    }
    graph.commit();
    return fused;
}

} // namespace kiln::plan
