#include "runtime/plan_description.h"

#include "backend/choice/backends.h"
#include "core/dims_text.h"
#include "core/printable_text.h"
#include "network/plugin_layer.h"
#include "plan/plan_format.h"
#include "network/layer_type_name.h"
#include "shape/expr.h"

#include <kiln/Backend.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln
{
namespace
{

//! printf's formatting of the arguments, appended to text.
__attribute__((format(printf, 2, 3))) void appendf(std::string& text, char const* format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    va_list measuring;
    va_copy(measuring, arguments);
    int const length = std::vsnprintf(nullptr, 0, format, measuring);
    va_end(measuring);
    if (length > 0)
    {
        size_t const start = text.size();
        text.resize(start + static_cast<size_t>(length) + 1);
        std::vsnprintf(text.data() + start, static_cast<size_t>(length) + 1, format, arguments);
        text.resize(start + static_cast<size_t>(length));
    }
    va_end(arguments);
}

//! ", kernel NAME" where the plan's backend names what runs the built-in layer (the CPU backend: oneDNN or its
//! reference kernel).
std::string kernelOf(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    if (plan::isView(model, layer))
    {
        return ", view of " + model.tensors[static_cast<size_t>(model.tensors[layer.outputs[0]].viewOf)].name
            + " (runs nothing)";
    }
    backend::Implementation const* implementation = backend::implementation(model.backend);
    std::string const tactic = implementation != nullptr ? implementation->tacticName(layer) : "";
    return tactic.empty() ? "" : ", kernel " + tactic;
}

using kiln::plan::PlanModel;

char const* operationSymbol(nvinfer1::DimensionOperation op)
{
    using nvinfer1::DimensionOperation;
    switch (op)
    {
    case DimensionOperation::kSUM: return "+";
    case DimensionOperation::kPROD: return "*";
    case DimensionOperation::kMAX: return "max";
    case DimensionOperation::kMIN: return "min";
    case DimensionOperation::kSUB: return "-";
    case DimensionOperation::kEQUAL: return "==";
    case DimensionOperation::kLESS: return "<";
    case DimensionOperation::kFLOOR_DIV: return "floordiv";
    case DimensionOperation::kCEIL_DIV: return "ceildiv";
    }
    return "?";
}

//! The longest expression printed whole. The expression table shares nodes, so one whose operands repeat prints far
//! longer than it is stored: a chain of reshapes whose rules for 0 and -1 each name the requested extent three times
//! grows its print exponentially (torchvision's ViT-B/16 output extent printed as 400 MB before the shape builder
//! folded those rules where the extents decide them).
constexpr size_t kPrintedExpressionLimit = 240;

//! Appends node's text to `text`: a number, "x.d0", or "(a + b)"; false (leaving part of it) once `text` passes
//! `limit` characters. Each operation adds characters before its operands, so even a malformed plan's cycle ends.
bool appendExpression(PlanModel const& model, int32_t node, std::string& text, size_t limit)
{
    if (text.size() > limit)
    {
        return false;
    }
    if (node < 0 || static_cast<size_t>(node) >= model.exprs.size())
    {
        text += "?";
        return true;
    }
    plan::ExprNode const& e = model.exprs[static_cast<size_t>(node)];
    switch (static_cast<shape::ExprKind>(e.kind))
    {
    case shape::ExprKind::kCONSTANT: text += std::to_string(e.value); return true;
    case shape::ExprKind::kSYMBOL:
    {
        if (e.symbol < 0 || static_cast<size_t>(e.symbol) >= model.symbols.size())
        {
            text += "?";
            return true;
        }
        plan::SymbolRecord const& s = model.symbols[static_cast<size_t>(e.symbol)];
        text += model.tensors[static_cast<size_t>(s.tensor)].name + ".d" + std::to_string(s.axis);
        return true;
    }
    case shape::ExprKind::kOPERATION:
        text += "(";
        if (!appendExpression(model, e.first, text, limit))
        {
            return false;
        }
        text += std::string(" ") + operationSymbol(e.op) + " ";
        if (!appendExpression(model, e.second, text, limit))
        {
            return false;
        }
        text += ")";
        return text.size() <= limit;
    case shape::ExprKind::kSIZE_TENSOR: text += "size"; return true;
    }
    text += "?";
    return true;
}

//! The operations node depends on, each counted once.
size_t operationsUnder(PlanModel const& model, int32_t node)
{
    std::vector<bool> seen(model.exprs.size(), false);
    std::vector<int32_t> pending{node};
    size_t operations = 0;
    while (!pending.empty())
    {
        int32_t const n = pending.back();
        pending.pop_back();
        if (n < 0 || static_cast<size_t>(n) >= model.exprs.size() || seen[static_cast<size_t>(n)])
        {
            continue;
        }
        seen[static_cast<size_t>(n)] = true;
        plan::ExprNode const& e = model.exprs[static_cast<size_t>(n)];
        if (static_cast<shape::ExprKind>(e.kind) == shape::ExprKind::kOPERATION)
        {
            ++operations;
            pending.push_back(e.first);
            pending.push_back(e.second);
        }
    }
    return operations;
}

//! A dimension as written in the plan's expression table, or, where that is longer than kPrintedExpressionLimit,
//! how many operations it is made of.
std::string expression(PlanModel const& model, int32_t node)
{
    std::string text;
    if (appendExpression(model, node, text, kPrintedExpressionLimit))
    {
        return text;
    }
    return "<an expression of " + std::to_string(operationsUnder(model, node)) + " operations>";
}

std::string shapeOf(PlanModel const& model, plan::TensorRecord const& tensor)
{
    std::string text = "[";
    for (size_t i = 0; i < tensor.dims.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + expression(model, tensor.dims[i]);
    }
    return text + "]";
}

//! A plugin layer's record (its plugin and negotiated types), as the plan holds it without the plugin's library;
//! nullptr for a built-in layer.
network::PluginParams const* pluginParamsOf(plan::LayerRecord const& layer)
{
    return dynamic_cast<network::PluginParams const*>(layer.params.get());
}

std::string typesOf(PlanModel const& model, plan::LayerRecord const& layer)
{
    // The layer's types, inputs then outputs: a plugin's negotiated ones (its shape inputs, listed last
    // among the inputs, keep their tensors' types), else the builder's choice; where neither says, the
    // tensor's own type.
    std::vector<nvinfer1::DataType> types = layer.ioTypes;
    network::PluginParams const* plugin = pluginParamsOf(layer);
    if (plugin != nullptr)
    {
        types = plugin->ioTypes;
        size_t const dataInputs = layer.inputs.size() - static_cast<size_t>(plugin->nbShapeInputs);
        for (size_t i = dataInputs; i < layer.inputs.size() && i <= types.size(); ++i)
        {
            int32_t const tensor = layer.inputs[i];
            types.insert(types.begin() + static_cast<std::ptrdiff_t>(i),
                tensor >= 0 ? model.tensors[static_cast<size_t>(tensor)].type : nvinfer1::DataType::kFLOAT);
        }
    }
    auto typeAt = [&](size_t slot, int32_t tensor) {
        if (slot < types.size())
        {
            return std::string(trtexecTypeName(types[slot]));
        }
        return tensor >= 0 ? std::string(trtexecTypeName(model.tensors[static_cast<size_t>(tensor)].type))
                           : std::string("-");
    };
    std::string in;
    std::string out;
    for (size_t i = 0; i < layer.inputs.size(); ++i)
    {
        in += (i == 0 ? "" : ",") + typeAt(i, layer.inputs[i]);
    }
    for (size_t o = 0; o < layer.outputs.size(); ++o)
    {
        out += (o == 0 ? "" : ",") + typeAt(layer.inputs.size() + o, layer.outputs[o]);
    }
    return "in " + (in.empty() ? "-" : in) + " -> out " + (out.empty() ? "-" : out);
}

char const* formatName(nvinfer1::TensorFormat format)
{
    switch (format)
    {
    case nvinfer1::TensorFormat::kHWC: return "HWC";
    case nvinfer1::TensorFormat::kHWC8: return "HWC8";
    case nvinfer1::TensorFormat::kCHW4: return "CHW4";
    case nvinfer1::TensorFormat::kCHW32: return "CHW32";
    default: return "linear";
    }
}

//! How the layer stores what it reads and writes: "row-major linear" throughout, else each slot's format, as
//! typesOf lists the types.
std::string formatsOf(PlanModel const& model, plan::LayerRecord const& layer)
{
    size_t const slots = layer.inputs.size() + layer.outputs.size();
    std::vector<std::string> names;
    bool linear = true;
    network::PluginParams const* plugin = pluginParamsOf(layer);
    // A plugin's negotiated formats: its data inputs, then its outputs (its shape inputs, listed last among the
    // inputs, are linear).
    auto pluginFormat = [&](size_t slot) {
        size_t const dataInputs = layer.inputs.size() - static_cast<size_t>(plugin->nbShapeInputs);
        size_t const at = slot < layer.inputs.size() ? slot : slot - static_cast<size_t>(plugin->nbShapeInputs);
        bool const shapeInput = slot >= dataInputs && slot < layer.inputs.size();
        return shapeInput || at >= plugin->ioFormats.size() ? nvinfer1::TensorFormat::kLINEAR : plugin->ioFormats[at];
    };
    for (size_t slot = 0; slot < slots; ++slot)
    {
        int32_t const tensor = slot < layer.inputs.size() ? layer.inputs[slot] : 0;
        nvinfer1::TensorFormat const format = tensor < 0 ? nvinfer1::TensorFormat::kLINEAR
            : plugin != nullptr                          ? pluginFormat(slot)
                                                         : plan::slotFormat(model, layer, slot);
        linear = linear && format == nvinfer1::TensorFormat::kLINEAR;
        names.push_back(formatName(format));
    }
    if (linear)
    {
        return "row-major linear";
    }
    std::string in;
    std::string out;
    for (size_t slot = 0; slot < slots; ++slot)
    {
        std::string& list = slot < layer.inputs.size() ? in : out;
        list += (list.empty() ? "" : ",") + names[slot];
    }
    return "formats in " + (in.empty() ? "-" : in) + " -> out " + (out.empty() ? "-" : out);
}

//! Where each tensor lives in the activation arena, or what it is a view of.
void describeMemoryPlan(PlanModel const& model, std::string& text)
{
    appendf(text,
        "\nMemory plan: %lld bytes of activations (shared by tensors whose lifetimes do not overlap), "
        "%lld bytes of workspace\n",
        static_cast<long long>(model.arenaBytes), static_cast<long long>(model.workspaceBytes));
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.arenaOffset >= 0)
        {
            appendf(text, "  %-28s offset %10lld  up to %10lld bytes\n", printableText(tensor.name).c_str(),
                static_cast<long long>(tensor.arenaOffset), static_cast<long long>(tensor.maxBytes));
        }
        else if (tensor.viewOf >= 0)
        {
            appendf(text, "  %-28s view of %s from element %s\n", printableText(tensor.name).c_str(),
                printableText(model.tensors[static_cast<size_t>(tensor.viewOf)].name).c_str(),
                printableText(expression(model, tensor.viewOffset)).c_str());
        }
    }
}

//! One line after the layer list: how many layers of each kind the plan holds, most first, the views apart (they run
//! nothing), so that what a build's fusions left can be read at a glance.
void describeLayerKinds(PlanModel const& model, std::string& text)
{
    std::map<std::string, size_t> counts;
    size_t views = 0;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (plan::isView(model, layer))
        {
            ++views;
        }
        else
        {
            ++counts[network::layerTypeName(layer.type)];
        }
    }
    std::vector<std::pair<std::string, size_t>> kinds(counts.begin(), counts.end());
    std::stable_sort(kinds.begin(), kinds.end(), [](auto const& a, auto const& b) { return a.second > b.second; });
    std::string line;
    for (auto const& [kind, count] : kinds)
    {
        line += (line.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
    }
    appendf(text, "  by kind: %s; %zu %s (run nothing)\n", line.empty() ? "none" : line.c_str(), views,
        views == 1 ? "view" : "views");
}

//! The description of a plan that readPlan accepted, size bytes long, named name.
void describeModel(PlanModel const& model, size_t size, char const* name, std::string& text)
{
    // Every string the plan holds (names, plugin fields, library paths) is printed through printableText: a plan is
    // not trusted, and an escape sequence or a newline in a name must not reach the terminal.
    appendf(text, "Plan %s: %zu bytes, format version %u, %s backend, network \"%s\"\n", printableText(name).c_str(),
        size, plan::kPlanFormatVersion, backendName(model.backend), printableText(model.networkName).c_str());

    // The build passes of the plan's backend, in the order it applies them (kiln::getBackendPassName).
    int32_t const passes = getNbBackendPasses(model.backend);
    appendf(text, "\nBuild passes of the %s backend, in the order it applies them (%d):\n", backendName(model.backend),
        passes);
    for (int32_t i = 0; i < passes; ++i)
    {
        appendf(text, "  %3d %s\n", i + 1, getBackendPassName(model.backend, i));
    }

    appendf(text, "\nPlugins needed (%zu):\n", model.manifest.size());
    for (plan::PluginRequirement const& p : model.manifest)
    {
        appendf(text, "  %s version %s namespace \"%s\" (%s), from %s\n", printableText(p.name).c_str(),
            printableText(p.version).c_str(), printableText(p.pluginNamespace).c_str(),
            printableText(p.interfaceKind).c_str(),
            p.library.empty() ? "the application that built the plan" : printableText(p.library).c_str());
    }

    appendf(text, "\nI/O tensors (%zu):\n", model.ioTensors.size());
    size_t inputIndex = 0;
    for (int32_t t : model.ioTensors)
    {
        plan::TensorRecord const& tensor = model.tensors[static_cast<size_t>(t)];
        bool const isInput = tensor.ioMode == nvinfer1::TensorIOMode::kINPUT;
        appendf(text, "  %-6s %-20s %-5s %s\n", isInput ? "input" : "output", printableText(tensor.name).c_str(),
            trtexecTypeName(tensor.type).c_str(), printableText(shapeOf(model, tensor)).c_str());
        for (size_t p = 0; isInput && p < model.profiles.size(); ++p)
        {
            if (inputIndex < model.profiles[p].inputs.size())
            {
                auto const& [min, opt, max] = model.profiles[p].inputs[inputIndex];
                appendf(text, "         profile %zu: min %s, opt %s, max %s\n", p, dimsSpec(min).c_str(),
                    dimsSpec(opt).c_str(), dimsSpec(max).c_str());
            }
        }
        inputIndex += isInput ? 1 : 0;
    }

    appendf(text, "\nLayers (%zu):\n", model.layers.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        plan::LayerRecord const& layer = model.layers[l];
        network::PluginParams const* plugin = pluginParamsOf(layer);
        std::string const runs = plugin != nullptr
            ? ", runs " + plugin->payload.name + " version " + plugin->payload.version
            : kernelOf(model, layer);
        appendf(text, "  %3zu %-28s %-14s precision %-5s %s, %s%s\n", l, printableText(layer.name).c_str(),
            network::layerTypeName(layer.type), layer.precision ? trtexecTypeName(*layer.precision).c_str() : "-",
            typesOf(model, layer).c_str(), formatsOf(model, layer).c_str(), printableText(runs).c_str());
    }
    describeLayerKinds(model, text);

    describeMemoryPlan(model, text);
}

} // namespace

std::optional<PlanVersions> readPlanVersions(void const* plan, size_t size) noexcept
{
    // The header (plan/plan_format.h): magic, format version, Kiln version, little-endian.
    auto const* bytes = static_cast<uint8_t const*>(plan);
    if (bytes == nullptr || size < plan::kPlanHeaderSize
        || std::memcmp(bytes, plan::kPlanMagic, sizeof(plan::kPlanMagic)) != 0)
    {
        return std::nullopt;
    }
    auto const word = [&](size_t offset) {
        return static_cast<uint32_t>(bytes[offset]) | static_cast<uint32_t>(bytes[offset + 1]) << 8U
            | static_cast<uint32_t>(bytes[offset + 2]) << 16U | static_cast<uint32_t>(bytes[offset + 3]) << 24U;
    };
    return PlanVersions{word(8), word(12)};
}

bool describePlan(
    void const* plan, size_t size, char const* name, std::string& description, std::string& error) noexcept
{
    try
    {
        PlanModel model;
        if (!plan::readPlan(plan, size, model, error))
        {
            return false;
        }
        description.clear();
        describeModel(model, size, name != nullptr ? name : "", description);
        return true;
    }
    catch (std::exception const& e)
    {
        error = std::string("cannot describe the plan: ") + e.what();
        return false;
    }
    catch (...)
    {
        error = "cannot describe the plan";
        return false;
    }
}

} // namespace kiln
