#include "plan/plan_validation.h"

#include "core/data_type.h"
#include "core/tensor_view.h"
#include "network/layers/layer_kinds.h"
#include "network/plugin_layer.h"
#include "plan/layer_contracts.h"
#include "plan/plan_graph.h"
#include "plan/plan_loops.h"
#include "shape/expr.h"

#include <algorithm>
#include <array>

namespace kiln::plan
{
namespace
{

// Bound on the activation memory and the workspace a plan may ask for (2^52 bytes, 4 PiB).
constexpr int64_t kMaxMemoryBytes = int64_t{1} << 52;

//! The formats a plan may store tensors in: row-major, and channels-last (CUDA plans' FP16 convolution chains, whose
//! RGB inputs are read as kHWC8).
bool storableFormat(nvinfer1::TensorFormat format)
{
    return format == nvinfer1::TensorFormat::kLINEAR || channelsLast(format);
}

//! Operations and size tensors refer to earlier expressions only, so the table has no cycles; symbols refer to
//! existing symbols of their kind, and each size-tensor symbol is declared by exactly one expression.
bool validateExprs(PlanModel const& m, std::string& error)
{
    auto const nbExprs = static_cast<int32_t>(m.exprs.size());
    std::vector<int32_t> declarations(m.symbols.size(), 0);
    auto const symbolOf = [&](ExprNode const& e, bool size) {
        bool const exists = e.symbol >= 0 && e.symbol < static_cast<int32_t>(m.symbols.size());
        return exists && (m.symbols[e.symbol].kind == SymbolRecord::Kind::kSIZE) == size;
    };
    for (int32_t i = 0; i < nbExprs; ++i)
    {
        ExprNode const& e = m.exprs[i];
        auto const kind = static_cast<shape::ExprKind>(e.kind);
        bool const hasOperands = kind == shape::ExprKind::kOPERATION || kind == shape::ExprKind::kSIZE_TENSOR;
        bool const operandsOk = hasOperands ? (e.first >= 0 && e.first < i && e.second >= 0 && e.second < i)
                                            : (e.first == -1 && e.second == -1);
        bool const symbolOk = kind == shape::ExprKind::kSYMBOL ? symbolOf(e, false)
            : kind == shape::ExprKind::kSIZE_TENSOR            ? symbolOf(e, true) && ++declarations[e.symbol] == 1
                                                               : e.symbol == -1;
        if (!operandsOk || !symbolOk || e.kind > static_cast<uint8_t>(shape::ExprKind::kSIZE_TENSOR))
        {
            error = "shape expression " + std::to_string(i) + " is malformed";
            return false;
        }
    }
    for (size_t s = 0; s < m.symbols.size(); ++s)
    {
        if (m.symbols[s].kind == SymbolRecord::Kind::kSIZE && declarations[s] != 1)
        {
            error = "size tensor " + std::to_string(s) + " is declared by no shape expression";
            return false;
        }
    }
    return true;
}

bool validateTensor(PlanModel const& m, TensorRecord const& t, std::string& error)
{
    auto const nbExprs = static_cast<int32_t>(m.exprs.size());
    auto const exprsOk = [&](std::vector<int32_t> const& indices) {
        return std::all_of(indices.begin(), indices.end(), [&](int32_t i) { return i >= 0 && i < nbExprs; });
    };
    if (t.dims.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        error = "tensor \"" + t.name + "\" has too many dimensions";
        return false;
    }
    if (!exprsOk(t.dims) || (t.values && !exprsOk(*t.values)))
    {
        error = "tensor \"" + t.name + "\" refers to a missing shape expression";
        return false;
    }
    // An application passes a shape-tensor input's values in a buffer of its shape's volume, from which the
    // context reads one value per entry of `values`: the shape must be fixed and hold exactly that many.
    if (t.ioMode == nvinfer1::TensorIOMode::kINPUT && t.values)
    {
        auto const count = static_cast<int64_t>(t.values->size());
        int64_t volume = 1; // at most `count` before each product, which therefore cannot overflow
        for (int32_t d : t.dims)
        {
            ExprNode const& extent = m.exprs[static_cast<size_t>(d)];
            bool const fixed = extent.kind == static_cast<uint8_t>(shape::ExprKind::kCONSTANT) && extent.value >= 0;
            if (!fixed || (extent.value > 0 && volume > count / extent.value))
            {
                volume = -1;
                break;
            }
            volume *= extent.value;
        }
        if (volume != count)
        {
            error = "shape-tensor input \"" + t.name + "\": the plan reads " + std::to_string(count)
                + (count == 1 ? " value" : " values") + " from it, which its shape does not hold exactly";
            return false;
        }
    }
    // Compared without adding offset and size, which a corrupted plan could make overflow.
    if (t.arenaOffset < -1 || t.maxBytes < 0
        || (t.arenaOffset >= 0 && (t.arenaOffset > m.arenaBytes || t.maxBytes > m.arenaBytes - t.arenaOffset)))
    {
        error = "tensor \"" + t.name + "\" lies outside the activation memory";
        return false;
    }
    if (t.arenaOffset > 0 && t.arenaOffset % kArenaAlignment != 0)
    {
        error = "tensor \"" + t.name + "\" lies at offset " + std::to_string(t.arenaOffset)
            + " of the activation memory, not a multiple of " + std::to_string(kArenaAlignment)
            + " bytes as the builder places every tensor";
        return false;
    }
    if (!storableFormat(t.format) || (t.format != nvinfer1::TensorFormat::kLINEAR && t.dims.size() < 3))
    {
        error = "tensor \"" + t.name + "\" is stored in a format Kiln does not store tensors in";
        return false;
    }
    return true;
}

//! Whether a tensor stored in `format` holds its elements and nothing else, as a view and the tensor it shows must:
//! row-major, or channels-last (a shuffle's view may move the channels, builder/view_layers.h); kHWC8 pads them.
bool unpadded(nvinfer1::TensorFormat format)
{
    return format == nvinfer1::TensorFormat::kLINEAR || format == nvinfer1::TensorFormat::kHWC;
}

//! A view has no memory and is no I/O tensor; it shows a tensor of its type that is not itself a view, from an
//! expression's element on. Its place and both tensors' shapes are known before the run (`sized`: by expression
//! node, whether it depends on a size tensor): a run places its views before any size is learnt.
bool validateView(PlanModel const& m, size_t index, std::vector<bool> const& sized, std::string& error)
{
    TensorRecord const& t = m.tensors[index];
    auto const nbExprs = static_cast<int32_t>(m.exprs.size());
    if (t.viewOf < 0)
    {
        if (t.viewOf == -1 && t.viewOffset == -1 && t.viewCheck == -1)
        {
            return true;
        }
    }
    else if (static_cast<size_t>(t.viewOf) < m.tensors.size() && static_cast<size_t>(t.viewOf) != index)
    {
        TensorRecord const& viewed = m.tensors[static_cast<size_t>(t.viewOf)];
        bool const offsetOk = t.viewOffset >= 0 && t.viewOffset < nbExprs;
        bool const checkOk = t.viewCheck >= -1 && t.viewCheck < nbExprs;
        if (offsetOk && checkOk && viewed.viewOf == -1 && viewed.type == t.type && elementSize(t.type) > 0
            && t.arenaOffset == -1 && t.ioMode == nvinfer1::TensorIOMode::kNONE && unpadded(t.format)
            && unpadded(viewed.format))
        {
            // The viewed tensor's nodes are checked when its turn comes: here, one out of range is not sized.
            auto const dataDependent = [&sized](int32_t node) {
                return node >= 0 && static_cast<size_t>(node) < sized.size() && sized[static_cast<size_t>(node)];
            };
            if (!dataDependent(t.viewOffset) && !dataDependent(t.viewCheck)
                && std::none_of(t.dims.begin(), t.dims.end(), dataDependent)
                && std::none_of(viewed.dims.begin(), viewed.dims.end(), dataDependent))
            {
                return true;
            }
            error = "tensor \"" + t.name + "\" is a view whose place or shape depends on a data-dependent size";
            return false;
        }
    }
    error = "tensor \"" + t.name + "\" is a malformed view";
    return false;
}

//! A view is the only output of a shuffle, slice or gather that reads the viewed tensor or another view of it.
bool validateViewLayer(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    for (int32_t t : l.outputs)
    {
        int32_t const viewed = m.tensors[t].viewOf;
        if (viewed < 0)
        {
            continue;
        }
        bool const kind = l.type == nvinfer1::LayerType::kSHUFFLE || l.type == nvinfer1::LayerType::kSLICE
            || l.type == nvinfer1::LayerType::kGATHER;
        int32_t const input = l.inputs.empty() ? -1 : l.inputs[0];
        if (!kind || l.outputs.size() != 1 || input < 0 || (input != viewed && m.tensors[input].viewOf != viewed))
        {
            error
                = "layer \"" + l.name + "\" writes the view \"" + m.tensors[t].name + "\" but does not view its input";
            return false;
        }
    }
    return true;
}

bool validateSymbols(PlanModel const& m, std::string& error)
{
    auto const nbTensors = static_cast<int32_t>(m.tensors.size());
    for (auto const& s : m.symbols)
    {
        if (s.tensor < 0 || s.tensor >= nbTensors || s.axis < 0)
        {
            error = "a runtime value refers to a missing tensor";
            return false;
        }
        TensorRecord const& t = m.tensors[s.tensor];
        bool const integers = t.type == nvinfer1::DataType::kINT32 || t.type == nvinfer1::DataType::kINT64;
        bool const fits = s.kind == SymbolRecord::Kind::kDIMENSION ? s.axis < static_cast<int32_t>(t.dims.size())
            : s.kind == SymbolRecord::Kind::kSIZE
            ? integers && t.ioMode != nvinfer1::TensorIOMode::kINPUT && t.dims.empty() && s.axis == 0
            : integers && t.ioMode == nvinfer1::TensorIOMode::kINPUT && t.values
                && s.axis < static_cast<int32_t>(t.values->size());
        if (!fits)
        {
            error = "a runtime value refers to a missing tensor dimension or shape value";
            return false;
        }
    }
    return true;
}

//! The layer's tensors exist, and its per-slot types and formats, where it has them, cover its inputs and outputs.
bool validateLayerSlots(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    auto const nbTensors = static_cast<int32_t>(m.tensors.size());
    bool const inputsOk
        = std::all_of(l.inputs.begin(), l.inputs.end(), [&](int32_t t) { return t >= -1 && t < nbTensors; });
    bool const outputsOk
        = std::all_of(l.outputs.begin(), l.outputs.end(), [&](int32_t t) { return t >= 0 && t < nbTensors; });
    if (!inputsOk || !outputsOk)
    {
        error = "layer \"" + l.name + "\" refers to a missing tensor";
        return false;
    }
    if (!l.ioTypes.empty() && l.ioTypes.size() != l.inputs.size() + l.outputs.size())
    {
        error = "layer \"" + l.name + "\" has I/O types for " + std::to_string(l.ioTypes.size()) + " tensors but "
            + std::to_string(l.inputs.size() + l.outputs.size()) + " inputs and outputs";
        return false;
    }
    if (!l.ioFormats.empty() && l.ioFormats.size() != l.inputs.size() + l.outputs.size())
    {
        error = "layer \"" + l.name + "\" has I/O formats for " + std::to_string(l.ioFormats.size()) + " tensors but "
            + std::to_string(l.inputs.size() + l.outputs.size()) + " inputs and outputs";
        return false;
    }
    return true;
}

bool validateLayerFormats(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    for (size_t slot = 0; slot < l.ioFormats.size(); ++slot)
    {
        // Channels-last slots need [N, C, spatial...] tensors, as stored ones do.
        int32_t const t = slot < l.inputs.size() ? l.inputs[slot] : l.outputs[slot - l.inputs.size()];
        nvinfer1::TensorFormat const format = l.ioFormats[slot];
        bool const fits = format == nvinfer1::TensorFormat::kLINEAR || t < 0 || m.tensors[t].dims.size() >= 3;
        if (!storableFormat(format) || !fits)
        {
            error = "layer \"" + l.name + "\" reads or writes a format Kiln does not store tensors in";
            return false;
        }
    }
    return true;
}

//! Guards and conditional outputs name 0-D BOOL conditions; a conditional output copies between tensors of one type.
bool validateConditionals(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    auto const isCondition = [&](int32_t t) {
        return t >= 0 && t < static_cast<int32_t>(m.tensors.size()) && m.tensors[t].type == nvinfer1::DataType::kBOOL
            && m.tensors[t].dims.empty();
    };
    bool const guardsOk
        = std::all_of(l.guards.begin(), l.guards.end(), [&](Guard const& g) { return isCondition(g.condition); });
    bool outputOk = true;
    if (isConditionalOutput(l))
    {
        outputOk = l.inputs.size() == 3 && !l.outputs.empty() && l.inputs[0] >= 0 && l.inputs[1] >= 0
            && isCondition(l.inputs[2]) && m.tensors[l.inputs[0]].dims.size() == m.tensors[l.outputs[0]].dims.size()
            && m.tensors[l.inputs[1]].dims.size() == m.tensors[l.outputs[0]].dims.size();
    }
    if (!guardsOk || !outputOk)
    {
        error = "layer \"" + l.name + "\" has a malformed condition (it must be a 0-D BOOL tensor) or branches";
        return false;
    }
    return true;
}

bool validateLayer(PlanModel const& m, LayerRecord const& l, std::string& error)
{
    if (!validateLayerSlots(m, l, error) || !validateLayerFormats(m, l, error) || !validateConditionals(m, l, error)
        || !validateViewLayer(m, l, error))
    {
        return false;
    }
    if (!l.epilogue.bias.empty() && !isFloatType(l.epilogue.bias.type()))
    {
        error = "layer \"" + l.name + "\": its fused bias must be FLOAT, HALF or BF16";
        return false;
    }
    if (l.epilogue.addsResidual && (l.inputs.empty() || l.inputs.back() < 0))
    {
        error = "layer \"" + l.name + "\" adds a residual but has no input to take it from";
        return false;
    }
    return true;
}

//! Whether `bounds` (a profile's min, opt and max of one input) fit tensor `t`: its rank, 0 <= min <= opt <= max on
//! every axis, and the extent itself on an axis the plan fixes.
bool boundsFit(PlanModel const& m, TensorRecord const& t, std::array<nvinfer1::Dims, 3> const& bounds)
{
    auto const& [min, opt, max] = bounds;
    auto const rank = static_cast<int32_t>(t.dims.size());
    if (min.nbDims != rank || opt.nbDims != rank || max.nbDims != rank)
    {
        return false;
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        ExprNode const& extent = m.exprs[static_cast<size_t>(t.dims[d])];
        bool const fixed = static_cast<shape::ExprKind>(extent.kind) == shape::ExprKind::kCONSTANT;
        if (min.d[d] < 0 || min.d[d] > opt.d[d] || opt.d[d] > max.d[d]
            || (fixed && (min.d[d] != extent.value || max.d[d] != extent.value)))
        {
            return false;
        }
    }
    return true;
}

//! Each optimization profile bounds every network input, within the input's shape; a plan with inputs has one at
//! least (a context starts with profile 0).
bool validateProfiles(PlanModel const& m, std::string& error)
{
    std::vector<int32_t> inputs;
    for (int32_t io : m.ioTensors)
    {
        if (m.tensors[io].ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            inputs.push_back(io);
        }
    }
    if (m.profiles.empty() && !inputs.empty())
    {
        error = "the plan has inputs but no optimization profile to bound them";
        return false;
    }
    for (size_t p = 0; p < m.profiles.size(); ++p)
    {
        if (m.profiles[p].inputs.size() != inputs.size())
        {
            error = "an optimization profile does not cover every input";
            return false;
        }
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            TensorRecord const& t = m.tensors[static_cast<size_t>(inputs[i])];
            if (!boundsFit(m, t, m.profiles[p].inputs[i]))
            {
                error = "optimization profile " + std::to_string(p) + " bounds input \"" + t.name
                    + "\" outside its shape (ranks, 0 <= min <= opt <= max, fixed extents)";
                return false;
            }
        }
    }
    return true;
}

//! Each refittable weights record names floating-point weights of a built-in layer of the plan.
bool validateRefittable(PlanModel const& m, std::string& error)
{
    for (RefitRecord const& record : m.refittable)
    {
        bool const inRange = record.layer >= 0 && static_cast<size_t>(record.layer) < m.layers.size();
        network::WeightsBuffer const* weights = inRange && m.layers[record.layer].params
            ? m.layers[record.layer].params->weightsOfRole(record.role)
            : nullptr;
        if (weights == nullptr || weights->empty() || !isFloatType(weights->type()))
        {
            error = "refittable weights \"" + record.name + "\" of layer \"" + record.layerName
                + "\" name no floating-point weights of the plan";
            return false;
        }
    }
    return true;
}

//! The I/O list names each tensor marked as a network input or output once, and no other.
bool validateIoTensors(PlanModel const& m, std::string& error)
{
    std::vector<bool> listed(m.tensors.size(), false);
    for (int32_t io : m.ioTensors)
    {
        if (io < 0 || static_cast<size_t>(io) >= m.tensors.size() || listed[static_cast<size_t>(io)])
        {
            error = io < 0 || static_cast<size_t>(io) >= m.tensors.size()
                ? "an I/O tensor index is out of range"
                : "tensor \"" + m.tensors[static_cast<size_t>(io)].name + "\" is listed twice among the I/O tensors";
            return false;
        }
        listed[static_cast<size_t>(io)] = true;
    }
    for (size_t t = 0; t < m.tensors.size(); ++t)
    {
        if ((m.tensors[t].ioMode != nvinfer1::TensorIOMode::kNONE) != listed[t])
        {
            error = "tensor \"" + m.tensors[t].name + "\" is "
                + (listed[t] ? "listed among the I/O tensors but not marked as one" : "marked as I/O but not listed");
            return false;
        }
    }
    return true;
}

//! Values flow forward: a layer reads network inputs and what earlier layers wrote; no tensor is written twice and
//! no network input at all; every network output is written. A record that broke this would hand a kernel a tensor
//! that no memory was placed for, or overwrite the application's input.
bool validateDataflow(PlanModel const& m, std::string& error)
{
    std::vector<bool> holdsValues(m.tensors.size(), false);
    for (int32_t io : m.ioTensors)
    {
        holdsValues[static_cast<size_t>(io)] = m.tensors[static_cast<size_t>(io)].ioMode
            == nvinfer1::TensorIOMode::kINPUT;
    }
    for (LayerRecord const& l : m.layers)
    {
        // A recurrence reads its next value (input 1) at the end of each iteration: validateLoops checks that its
        // loop, or what runs before it, writes it.
        size_t const readNow = l.type == nvinfer1::LayerType::kRECURRENCE ? std::min<size_t>(l.inputs.size(), 1)
                                                                          : l.inputs.size();
        for (int32_t t :
            std::vector<int32_t>(l.inputs.begin(), l.inputs.begin() + static_cast<std::ptrdiff_t>(readNow)))
        {
            if (t >= 0 && !holdsValues[static_cast<size_t>(t)])
            {
                error = "layer \"" + l.name + "\" reads tensor \"" + m.tensors[static_cast<size_t>(t)].name
                    + "\", which no network input or earlier layer provides";
                return false;
            }
        }
        for (int32_t t : l.outputs)
        {
            if (holdsValues[static_cast<size_t>(t)])
            {
                error = "layer \"" + l.name + "\" writes tensor \"" + m.tensors[static_cast<size_t>(t)].name
                    + "\", which a network input or an earlier layer already provides";
                return false;
            }
            holdsValues[static_cast<size_t>(t)] = true;
        }
    }
    for (int32_t io : m.ioTensors)
    {
        if (!holdsValues[static_cast<size_t>(io)])
        {
            error = "network output \"" + m.tensors[static_cast<size_t>(io)].name + "\" is written by no layer";
            return false;
        }
    }
    return true;
}

//! Each loop's layers are contiguous and keep TensorRT's rules for what crosses a loop's boundary.
bool validateLoops(PlanModel const& m, std::string& error)
{
    std::vector<LoopRange> loops;
    std::vector<int32_t> innermost;
    return findLoops(m, true, loops, innermost, error);
}

} // namespace

bool validatePlan(PlanModel const& m, std::string& error)
{
    if (!validateExprs(m, error))
    {
        return false;
    }
    std::vector<bool> const sized = sizeDependentNodes(m);
    for (size_t t = 0; t < m.tensors.size(); ++t)
    {
        if (!validateTensor(m, m.tensors[t], error) || !validateView(m, t, sized, error))
        {
            return false;
        }
    }
    if (!validateSymbols(m, error))
    {
        return false;
    }
    if (!validateIoTensors(m, error))
    {
        return false;
    }
    for (auto const& l : m.layers)
    {
        if (!validateLayer(m, l, error))
        {
            return false;
        }
    }
    // The profiles are checked against the I/O tensors, so only once those are known to exist.
    if (!validateProfiles(m, error) || !validateRefittable(m, error))
    {
        return false;
    }
    if (m.arenaBytes < 0 || m.workspaceBytes < 0)
    {
        error = "negative memory sizes";
        return false;
    }
    // A context adds the two (the arena rounded up to an alignment): each must leave room for that.
    if (m.arenaBytes > kMaxMemoryBytes || m.workspaceBytes > kMaxMemoryBytes)
    {
        error = "the plan asks for " + std::to_string(m.arenaBytes) + " bytes of activation memory and "
            + std::to_string(m.workspaceBytes) + " bytes of workspace, more than any machine has";
        return false;
    }
    // A kind's inference reads the tensors and expressions checked above; the flow between layers is checked once
    // each layer is known to fit its kind.
    return validateLayerContracts(m, error) && validateDataflow(m, error) && validateLoops(m, error);
}

} // namespace kiln::plan
