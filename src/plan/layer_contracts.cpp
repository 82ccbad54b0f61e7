#include "plan/layer_contracts.h"

#include "core/data_type.h"
#include "network/layer_type_name.h"
#include "network/layers/layer_kinds.h"
#include "network/plugin_layer.h"
#include "plan/expr_table.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <type_traits>
#include <utility>

namespace kiln::plan
{
namespace
{

//! The plan's shape expressions rebuilt as nodes, so that a kind's inference can read its inputs' extents.
class RecordedFacts
{
public:
    bool rebuild(PlanModel const& m, std::string& error)
    {
        if (!rebuildExprTable(m, mBuilder, mSymbols, mExprs, error))
        {
            error = "the plan is malformed: " + error;
            return false;
        }
        return true;
    }

    //! What layer `l` reads at input slot `slot`: the tensor's recorded shape (and values, for shape tensors) in the
    //! type the layer reads it in.
    network::TensorFacts facts(PlanModel const& m, LayerRecord const& l, size_t slot) const
    {
        TensorRecord const& t = m.tensors[static_cast<size_t>(l.inputs[slot])];
        network::TensorFacts facts;
        facts.type = slotType(m, l, slot);
        facts.dims.nbDims = static_cast<int32_t>(t.dims.size()); // at most MAX_DIMS: validateTensor checked it
        for (size_t axis = 0; axis < t.dims.size(); ++axis)
        {
            facts.dims.d[axis] = mExprs[static_cast<size_t>(t.dims[axis])];
        }
        if (t.values)
        {
            facts.values.emplace();
            for (int32_t node : *t.values)
            {
                facts.values->push_back(mExprs[static_cast<size_t>(node)]);
            }
        }
        return facts;
    }

    shape::ExprBuilder& builder()
    {
        return mBuilder;
    }

    //! The plan's expression node `node`, rebuilt.
    shape::Expr const& expr(int32_t node) const
    {
        return *mExprs[static_cast<size_t>(node)];
    }

private:
    shape::ExprBuilder mBuilder;
    std::vector<shape::Expr const*> mSymbols;
    std::vector<shape::Expr const*> mExprs;
};

std::string describe(LayerRecord const& l)
{
    return "layer \"" + l.name + "\" (" + network::layerTypeName(l.type) + ")";
}

//! The inputs the kind's own inference reads: a fused residual (Epilogue::addsResidual) is an input the builder
//! added after inference, which the kind does not know.
size_t inferredInputs(LayerRecord const& l)
{
    return l.epilogue.addsResidual ? l.inputs.size() - 1 : l.inputs.size();
}

//! The recorded outputs agree with what inference made of the recorded inputs: as many, of the same ranks, and of the
//! same extents where both are build-time constants (symbolic extents may be written in other but equal forms). Their
//! types are not compared: an application may ask for any output type (ILayer::setOutputType, ITensor::setType), the
//! network's inference then takes it in place of the kind's, and the plan does not record that it was asked for. The
//! inputs' types, which the kind checks, are what its kernels read.
bool outputsAgree(PlanModel const& m, LayerRecord const& l, network::InferenceContext& ctx,
    RecordedFacts const& recorded, std::string& error)
{
    for (size_t o = 0; o < l.outputs.size(); ++o)
    {
        network::TensorFacts const& inferred = ctx.output(static_cast<int32_t>(o));
        TensorRecord const& tensor = m.tensors[static_cast<size_t>(l.outputs[o])];
        if (static_cast<int32_t>(tensor.dims.size()) != inferred.dims.nbDims)
        {
            error = describe(l) + ": output " + std::to_string(o) + " is recorded with rank "
                + std::to_string(tensor.dims.size()) + ", but the layer makes rank "
                + std::to_string(inferred.dims.nbDims) + " from its recorded inputs";
            return false;
        }
        for (int32_t axis = 0; axis < inferred.dims.nbDims; ++axis)
        {
            nvinfer1::IDimensionExpr const* made = inferred.dims.d[axis];
            shape::Expr const& kept = recorded.expr(tensor.dims[static_cast<size_t>(axis)]);
            if (made != nullptr && made->isConstant() && kept.isConstant()
                && made->getConstantValue() != kept.getConstantValue())
            {
                error = describe(l) + ": output " + std::to_string(o) + " is recorded with extent "
                    + std::to_string(kept.getConstantValue()) + " on axis " + std::to_string(axis)
                    + ", but the layer makes " + std::to_string(made->getConstantValue()) + " from its recorded inputs";
                return false;
            }
        }
    }
    return true;
}

//! Runs the kind's inference on the recorded inputs, as the network did when the layer was added.
bool inferredAgrees(PlanModel const& m, LayerRecord const& l, RecordedFacts& recorded, std::string& error)
{
    if (l.epilogue.addsResidual && (l.inputs.empty() || l.inputs.back() < 0))
    {
        error = describe(l) + " adds a residual but has no input to take it from";
        return false;
    }
    size_t const nbInputs = inferredInputs(l);
    std::vector<network::TensorFacts> facts(nbInputs);
    std::vector<network::TensorFacts const*> inputs(nbInputs, nullptr);
    for (size_t i = 0; i < nbInputs; ++i)
    {
        if (l.inputs[i] >= 0)
        {
            facts[i] = recorded.facts(m, l, i);
            inputs[i] = &facts[i];
        }
    }
    int32_t const nbOutputs = l.params->nbOutputs();
    if (nbOutputs < 0 || static_cast<size_t>(nbOutputs) != l.outputs.size())
    {
        error = describe(l) + " has " + std::to_string(l.outputs.size()) + " outputs; its kind makes "
            + std::to_string(nbOutputs);
        return false;
    }
    network::InferenceContext ctx(recorded.builder(), std::move(inputs), nbOutputs, network::InferencePhase::kBUILDING);
    if (!l.params->infer(ctx))
    {
        std::string const why = ctx.error().empty() ? recorded.builder().lastError() : ctx.error();
        error = describe(l) + " does not hold for its recorded inputs: " + (why.empty() ? "inference failed" : why);
        return false;
    }
    return outputsAgree(m, l, ctx, recorded, error);
}

//! Every input slot in `required` holds a tensor; every tensor the layer reads or writes is floating-point (in its
//! slot); outputs number `nbOutputs`.
//! Whether `l` has its first `required` inputs and `nbOutputs` outputs, and computes on floating point: every slot
//! given is FLOAT, HALF or BF16, but those `coded` says hold INT8 or FP8 codes (slots count the inputs, then the
//! outputs).
bool fusedSlotsHold(PlanModel const& m, LayerRecord const& l, size_t required, size_t nbOutputs, std::string& error,
    std::function<bool(size_t)> const& coded = nullptr)
{
    bool present = l.inputs.size() >= required && l.outputs.size() == nbOutputs;
    for (size_t i = 0; present && i < required; ++i)
    {
        present = l.inputs[i] >= 0;
    }
    if (!present)
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size()) + " inputs and "
            + std::to_string(l.outputs.size()) + " outputs: its kind needs its first " + std::to_string(required)
            + " inputs and makes " + std::to_string(nbOutputs);
        return false;
    }
    size_t const inputs = l.inputs.size();
    for (size_t slot = 0; slot < inputs + l.outputs.size(); ++slot)
    {
        bool const given = slot >= inputs || l.inputs[slot] >= 0;
        if (!given)
        {
            continue; // an absent optional input has no type to check (nor a tensor to read one from)
        }
        nvinfer1::DataType const type = slotType(m, l, slot);
        if (coded && coded(slot))
        {
            if (type != nvinfer1::DataType::kINT8 && type != nvinfer1::DataType::kFP8)
            {
                error = describe(l) + " reads or writes " + dataTypeName(type) + " where its parameters give a scale "
                    + "of INT8 or FP8 codes";
                return false;
            }
        }
        else if (!isFloatType(type))
        {
            error
                = describe(l) + " reads or writes " + dataTypeName(type) + "; its kind computes on FLOAT, HALF or BF16";
            return false;
        }
    }
    return true;
}

size_t rankOf(PlanModel const& m, int32_t t)
{
    return t >= 0 ? m.tensors[static_cast<size_t>(t)].dims.size() : 0;
}

//! A fused point-wise chain: its steps read its inputs or earlier steps, and its inputs broadcast into its output at
//! equal ranks.
bool pointwiseHolds(PlanModel const& m, LayerRecord const& l, network::PointwiseParams const& p, std::string& error)
{
    if (!fusedSlotsHold(m, l, 1, 1, error))
    {
        return false;
    }
    size_t const rank = rankOf(m, l.outputs[0]);
    bool const ranksOk
        = std::all_of(l.inputs.begin(), l.inputs.end(), [&](int32_t t) { return t >= 0 && rankOf(m, t) == rank; });
    if (!ranksOk || !network::wellFormed(p.steps, l.inputs.size()))
    {
        error = describe(l) + ": its steps read inputs it does not have, or its inputs' ranks differ from its output's";
        return false;
    }
    return true;
}

//! A fused normalization: x, pre-bias, residual, scale and bias (all but x optional), y and an optional sum, all of
//! x's rank, normalized over 1 to rank trailing axes; x, the residual and y INT8 or FP8 where a scale says so.
bool normalizationHolds(
    PlanModel const& m, LayerRecord const& l, network::FusedNormalizationParams const& p, std::string& error)
{
    using network::FusedNormalizationParams;
    if (l.inputs.size() != FusedNormalizationParams::kInputCount)
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size())
            + " inputs; its kind takes 5 (x, pre-bias, residual, scale, bias)";
        return false;
    }
    float const scales[]{p.inputScale, p.residualScale, p.outputScale, p.sumScale};
    bool const scalesOk = std::all_of(
        std::begin(scales), std::end(scales), [](float scale) { return std::isfinite(scale) && scale >= 0.0F; });
    if (!scalesOk || (p.quantizes() && !isFloatType(p.valueType)))
    {
        error = describe(l) + " has a quantization scale that is negative or not finite, or holds values in "
            + dataTypeName(p.valueType);
        return false;
    }
    auto const coded = [&p](size_t slot) {
        return (slot == FusedNormalizationParams::kInput && p.inputScale > 0.0F)
            || (slot == FusedNormalizationParams::kResidual && p.residualScale > 0.0F)
            || (slot == FusedNormalizationParams::kInputCount && p.outputScale > 0.0F);
    };
    if (!fusedSlotsHold(m, l, 1, l.outputs.size() == 2 ? 2 : 1, error, coded))
    {
        return false;
    }
    if (p.sumScale > 0.0F && p.sumCodeType != nvinfer1::DataType::kINT8 && p.sumCodeType != nvinfer1::DataType::kFP8)
    {
        error = describe(l) + " rounds its sum through codes of " + dataTypeName(p.sumCodeType) + ", not INT8 or FP8";
        return false;
    }
    size_t const rank = rankOf(m, l.inputs[0]);
    auto const sameRank = [&](int32_t t) { return t < 0 || rankOf(m, t) == rank; };
    bool const ranksOk = std::all_of(l.inputs.begin(), l.inputs.end(), sameRank)
        && std::all_of(l.outputs.begin(), l.outputs.end(), sameRank);
    if (!ranksOk || p.normalizedAxes < 1 || static_cast<size_t>(p.normalizedAxes) > rank)
    {
        error = describe(l) + ": its tensors' ranks differ, or it normalizes over " + std::to_string(p.normalizedAxes)
            + " axes of a rank-" + std::to_string(rank) + " input";
        return false;
    }
    return true;
}

//! A fused attention: query, keys, values and an optional mask; one output of rank 2 or more.
bool attentionHolds(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    if (l.inputs.size() != 3 && l.inputs.size() != 4)
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size())
            + " inputs; its kind takes query, keys, values and an optional mask";
        return false;
    }
    if (!fusedSlotsHold(m, l, 3, 1, error))
    {
        return false;
    }
    if (rankOf(m, l.outputs[0]) < 2)
    {
        error = describe(l) + ": its output has rank " + std::to_string(rankOf(m, l.outputs[0])) + ", not 2 or more";
        return false;
    }
    auto const* params = dynamic_cast<network::AttentionParams const*>(l.params.get());
    if (params == nullptr)
    {
        error = describe(l) + " holds no attention parameters";
        return false;
    }
    std::array<std::pair<char const*, network::AttentionPick const*>, 3> const picks{
        {{"query", &params->queryPick}, {"keys", &params->keyPick}, {"values", &params->valuePick}}};
    for (size_t i = 0; i < picks.size(); ++i)
    {
        network::AttentionPick const& pick = *picks[i].second;
        bool const inside = !pick.picks()
            || (static_cast<size_t>(pick.axis) < rankOf(m, l.inputs[i]) && pick.index >= 0);
        if (pick.axis < -1 || !inside)
        {
            error = describe(l) + " picks its " + picks[i].first + " as index " + std::to_string(pick.index)
                + " of axis " + std::to_string(pick.axis) + ", which its tensor of rank "
                + std::to_string(rankOf(m, l.inputs[i])) + " does not have";
            return false;
        }
    }
    for (network::AttentionRounding const* rounding : {&params->queryRounding, &params->keysRounding,
             &params->valuesRounding, &params->scoresRounding, &params->probabilitiesRounding})
    {
        bool const type = !rounding->rounds() || rounding->type == nvinfer1::DataType::kINT8
            || rounding->type == nvinfer1::DataType::kFP8;
        bool const scale = std::isfinite(rounding->scale) && rounding->scale > 0.0F;
        if (!type || !scale || !std::isfinite(rounding->factor))
        {
            error = describe(l) + " rounds a value into type " + std::to_string(static_cast<int>(rounding->type))
                + " by scale " + std::to_string(rounding->scale) + " after a factor " + std::to_string(rounding->factor)
                + "; roundings are into INT8 or FP8 by a positive scale";
            return false;
        }
    }
    return true;
}

//! A recurrent sequence: the inputs and outputs its cell takes (each gate's input and weights, the initial states,
//! GRU's bias), of the ranks the layer reads them in, on floating point.
bool recurrentSequenceHolds(
    PlanModel const& m, LayerRecord const& l, network::RecurrentSequenceParams const* params, std::string& error)
{
    if (params == nullptr)
    {
        error = describe(l) + " holds no recurrent sequence parameters";
        return false;
    }
    using Sequence = network::RecurrentSequenceParams;
    bool const lstm = params->gates == Sequence::kLstmGates;
    bool const gru = params->gates == Sequence::kGruGates;
    if (!lstm && !gru && params->gates != Sequence::kRnnGates)
    {
        error = describe(l) + " has " + std::to_string(params->gates) + " gates: an RNN has 1, a GRU 3, an LSTM 4";
        return false;
    }
    if (params->writesLastCell && !lstm)
    {
        error = describe(l) + " writes a last cell state, which only an LSTM has";
        return false;
    }
    if (l.inputs.size() != params->inputCount())
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size()) + " input slots; its cell has "
            + std::to_string(params->inputCount());
        return false;
    }
    if (!fusedSlotsHold(m, l, params->initialHiddenSlot() + 1, params->outputCount(), error))
    {
        return false;
    }
    bool const cellGiven = l.inputs[params->initialCellSlot()] >= 0;
    bool const biasGiven = l.inputs[params->hiddenBiasSlot()] >= 0;
    if (cellGiven != lstm || (biasGiven && !gru))
    {
        error = describe(l) + ": an initial cell state is given to an LSTM alone, and a recurrence bias to a GRU alone";
        return false;
    }
    auto const rankIs = [&](int32_t t, size_t rank) { return t < 0 || rankOf(m, t) == rank; };
    bool ranks = rankOf(m, l.outputs[0]) == 3 && rankOf(m, l.inputs[params->initialHiddenSlot()]) == 2
        && rankIs(l.inputs[params->initialCellSlot()], 2) && rankIs(l.inputs[params->hiddenBiasSlot()], 2);
    for (int32_t g = 0; g < params->gates; ++g)
    {
        ranks = ranks && rankIs(l.inputs[params->inputSlot(g)], 3) && rankIs(l.inputs[params->weightsSlot(g)], 2);
    }
    for (size_t o = 1; o < l.outputs.size(); ++o)
    {
        ranks = ranks && rankIs(l.outputs[o], 2);
    }
    if (!ranks)
    {
        error = describe(l)
            + ": its gates' inputs and stacked output are 3-D ([steps, batch, hidden]), its weights, "
              "states and bias 2-D";
        return false;
    }
    return true;
}

//! A pair of recurrent sequences: each one's record as a recurrent sequence of its own, with the same gates.
bool recurrentSequencePairHolds(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    auto const* pair = dynamic_cast<network::RecurrentSequencePairParams const*>(l.params.get());
    if (pair == nullptr)
    {
        error = describe(l) + " holds no parameters of a pair of recurrent sequences";
        return false;
    }
    if (pair->first.gates != pair->second.gates)
    {
        error = describe(l) + " pairs cells of " + std::to_string(pair->first.gates) + " and "
            + std::to_string(pair->second.gates) + " gates: a pair's cells are alike";
        return false;
    }
    size_t const inputs = pair->secondInput() + pair->second.inputCount();
    size_t const outputs = pair->secondOutput() + pair->second.outputCount();
    if (l.inputs.size() != inputs || l.outputs.size() != outputs)
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size()) + " inputs and "
            + std::to_string(l.outputs.size()) + " outputs; its two sequences take " + std::to_string(inputs) + " and "
            + std::to_string(outputs);
        return false;
    }
    auto const listsEachSlot = [&](size_t size) { return size == 0 || size == inputs + outputs; };
    if (!listsEachSlot(l.ioTypes.size()) || !listsEachSlot(l.ioFormats.size()))
    {
        error = describe(l) + " lists types or formats for " + std::to_string(l.ioTypes.size()) + " and "
            + std::to_string(l.ioFormats.size()) + " of its " + std::to_string(inputs + outputs) + " slots";
        return false;
    }
    // Each half as a layer of its own: its inputs, outputs, and their types and formats where the record lists them
    // (inputs then outputs: each part cut apart, then the halves' parts joined).
    auto const halvesOf = [&](auto const& io) {
        using Slots = std::remove_cvref_t<decltype(io)>;
        if (io.empty())
        {
            return std::pair<Slots, Slots>{};
        }
        auto const at = io.begin() + static_cast<ptrdiff_t>(inputs);
        auto [firstRead, secondRead] = pair->split(Slots(io.begin(), at), false);
        auto const [firstWritten, secondWritten] = pair->split(Slots(at, io.end()), true);
        firstRead.insert(firstRead.end(), firstWritten.begin(), firstWritten.end());
        secondRead.insert(secondRead.end(), secondWritten.begin(), secondWritten.end());
        return std::pair<Slots, Slots>{firstRead, secondRead};
    };
    auto const [firstInputs, secondInputs] = pair->split(l.inputs, false);
    auto const [firstOutputs, secondOutputs] = pair->split(l.outputs, true);
    auto const [firstTypes, secondTypes] = halvesOf(l.ioTypes);
    auto const [firstFormats, secondFormats] = halvesOf(l.ioFormats);
    auto const half = [&](network::RecurrentSequenceParams const& params, std::vector<int32_t> const& read,
                          std::vector<int32_t> const& written, std::vector<nvinfer1::DataType> const& types,
                          std::vector<nvinfer1::TensorFormat> const& formats) {
        LayerRecord part = l;
        part.inputs = read;
        part.outputs = written;
        part.ioTypes = types;
        part.ioFormats = formats;
        return recurrentSequenceHolds(m, part, &params, error);
    };
    return half(pair->first, firstInputs, firstOutputs, firstTypes, firstFormats)
        && half(pair->second, secondInputs, secondOutputs, secondTypes, secondFormats);
}

//! A plugin's record: its shape inputs among its inputs, as many outputs as the plugin declared when the plan was
//! built, and one negotiated type per tensor it reads or writes (shape inputs excepted). The plugin itself is checked
//! against the record once the registry recreates it (runtime/engine_plugin_check.cpp).
bool pluginHolds(PlanModel const& m, LayerRecord const& l, network::PluginParams const& p, std::string& error)
{
    bool const shapesOk = p.nbShapeInputs >= 0 && static_cast<size_t>(p.nbShapeInputs) <= l.inputs.size();
    bool const outputsOk = p.outputCount >= 0 && static_cast<size_t>(p.outputCount) == l.outputs.size();
    if (!shapesOk || !outputsOk
        || p.ioTypes.size() != l.inputs.size() - static_cast<size_t>(p.nbShapeInputs) + l.outputs.size())
    {
        error = describe(l) + " has " + std::to_string(l.inputs.size()) + " inputs and "
            + std::to_string(l.outputs.size()) + " outputs, which its plugin record (" + std::to_string(p.nbShapeInputs)
            + " shape inputs, " + std::to_string(p.outputCount) + " outputs, " + std::to_string(p.ioTypes.size())
            + " negotiated types) does not describe";
        return false;
    }
    // A plugin is given every input it was added with: the network API has no absent plugin input, and a plugin
    // handed one would read its elements from a null address.
    auto const absent = std::find_if(l.inputs.begin(), l.inputs.end(), [](int32_t t) { return t < 0; });
    if (absent != l.inputs.end())
    {
        error = describe(l) + ": its input " + std::to_string(absent - l.inputs.begin())
            + " is absent, which a plugin layer's inputs never are";
        return false;
    }
    // The formats a plugin may negotiate (prepare_plugin.cpp), each on a tensor of at least three axes where it is
    // vector-major, as the reformatters need.
    for (size_t slot = 0; slot < p.ioFormats.size(); ++slot)
    {
        nvinfer1::TensorFormat const format = p.ioFormats[slot];
        size_t const inputs = l.inputs.size() - static_cast<size_t>(p.nbShapeInputs);
        int32_t const tensor = slot < inputs ? l.inputs[slot] : l.outputs[slot - inputs];
        bool const vectorMajor = format == nvinfer1::TensorFormat::kCHW4 || format == nvinfer1::TensorFormat::kCHW32;
        if ((format != nvinfer1::TensorFormat::kLINEAR && !vectorMajor)
            || (vectorMajor && tensor >= 0 && rankOf(m, tensor) < 3))
        {
            error = describe(l) + ": its plugin record gives tensor " + std::to_string(slot) + " a format ("
                + std::to_string(static_cast<int32_t>(format))
                + ") that plugins do not negotiate for it: kLINEAR, or kCHW4 or kCHW32 on three axes or more";
            return false;
        }
    }
    return true;
}

//! A slice the product-merging pass made: a size of -1 takes the extent of the output's recorded shape, which the
//! network API has no way to say. It reads one tensor and writes one of the same rank and type.
bool isMergedBlock(LayerRecord const& l)
{
    auto const* slice = dynamic_cast<network::SliceParams const*>(l.params.get());
    return slice != nullptr
        && std::any_of(slice->size.d, slice->size.d + std::clamp(slice->size.nbDims, 0, 8),
            [](int64_t extent) { return extent < 0; });
}

bool mergedBlockHolds(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    bool const shapeOk = l.inputs.size() == 1 && l.inputs[0] >= 0 && l.outputs.size() == 1
        && rankOf(m, l.inputs[0]) == rankOf(m, l.outputs[0]) && slotType(m, l, 0) == slotType(m, l, 1);
    if (!shapeOk)
    {
        error = describe(l)
            + ": a slice whose size comes from its output reads one tensor and writes one of the "
              "same rank and type";
        return false;
    }
    return true;
}

bool layerHolds(PlanModel const& m, LayerRecord const& l, RecordedFacts& recorded, std::string& error)
{
    if (auto const* plugin = dynamic_cast<network::PluginParams const*>(l.params.get()))
    {
        return pluginHolds(m, l, *plugin, error);
    }
    // Conditional outputs, which the execution context runs, are checked by the plan's own validation.
    if (isConditionalOutput(l))
    {
        return true;
    }
    // The kinds only fusion passes make: their network inference refuses every record by design.
    if (auto const* pointwise = dynamic_cast<network::PointwiseParams const*>(l.params.get()))
    {
        return pointwiseHolds(m, l, *pointwise, error);
    }
    if (auto const* normalization = dynamic_cast<network::FusedNormalizationParams const*>(l.params.get()))
    {
        return normalizationHolds(m, l, *normalization, error);
    }
    if (l.type == network::kAttentionLayerType)
    {
        return attentionHolds(m, l, error);
    }
    if (l.type == network::kRecurrentSequenceLayerType)
    {
        return recurrentSequenceHolds(
            m, l, dynamic_cast<network::RecurrentSequenceParams const*>(l.params.get()), error);
    }
    if (l.type == network::kRecurrentSequencePairLayerType)
    {
        return recurrentSequencePairHolds(m, l, error);
    }
    if (isMergedBlock(l))
    {
        return mergedBlockHolds(m, l, error);
    }
    return inferredAgrees(m, l, recorded, error);
}

} // namespace

bool validateLayerContracts(PlanModel const& model, std::string& error)
{
    RecordedFacts recorded;
    if (!recorded.rebuild(model, error))
    {
        return false;
    }
    for (LayerRecord const& layer : model.layers)
    {
        recorded.builder().clearErrors();
        if (!layerHolds(model, layer, recorded, error))
        {
            return false;
        }
    }
    return true;
}

} // namespace kiln::plan
