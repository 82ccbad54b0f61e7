#include "runtime/engine_inspector.h"

#include "core/logging.h"
#include "core/data_type.h"
#include "network/plugin_layer.h"
#include "runtime/execution_context.h"
#include "network/layer_type_name.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace kiln::runtime
{
namespace
{

using nlohmann::json;

//! One tensor as a layer sees it.
struct TensorUse
{
    std::string name;
    nvinfer1::DataType type;
    nvinfer1::TensorFormat format;
    std::vector<int64_t> dims;
};

struct LayerDescription
{
    std::string name;
    std::string type;
    std::optional<nvinfer1::DataType> precision;
    std::vector<TensorUse> inputs;
    std::vector<TensorUse> outputs;
    network::PluginParams const* plugin{nullptr};
    std::string tactic; //!< what runs the layer, where its backend says (Implementation::tacticName)
    std::string viewOf; //!< a view (nothing runs): the tensor whose memory its output is
};

std::string formatOf(nvinfer1::DataType type, nvinfer1::TensorFormat format)
{
    char const* layout = format == nvinfer1::TensorFormat::kHWC8 ? "Channels last, padded to 8 channels (HWC8) "
        : format == nvinfer1::TensorFormat::kHWC                 ? "Channels last (HWC) "
        : format == nvinfer1::TensorFormat::kCHW4                ? "Four wide channel vectorized row major (CHW4) "
        : format == nvinfer1::TensorFormat::kCHW32 ? "Thirty-two wide channel vectorized row major (CHW32) "
                                                   : "Row major linear ";
    return layout + dataTypeName(type);
}

//! Layer `l` with the types it reads and writes and, where `shapes` is given, concrete shapes.
LayerDescription describe(Engine const& engine, size_t l, std::vector<nvinfer1::Dims> const* shapes)
{
    plan::PlanModel const& model = engine.model();
    plan::LayerRecord const& record = model.layers[l];
    LayerDescription layer{record.name, network::layerTypeName(record.type), record.precision, {}, {}, nullptr, {}, {}};
    layer.plugin = dynamic_cast<network::PluginParams const*>(&engine.layerParams(l));
    if (plan::isView(model, record))
    {
        layer.tactic = "view";
        layer.viewOf = model.tensors[model.tensors[record.outputs[0]].viewOf].name;
    }
    else if (layer.plugin == nullptr)
    {
        layer.tactic = engine.implementation().tacticName(record);
    }

    // The types the layer works in: the plugin's negotiated ones (its shape inputs keep theirs), the
    // builder's choice for a built-in layer, else the tensors' own.
    std::vector<nvinfer1::DataType> types = record.ioTypes;
    std::vector<nvinfer1::TensorFormat> pluginFormats;
    if (layer.plugin != nullptr)
    {
        types = layer.plugin->ioTypes;
        pluginFormats = layer.plugin->ioFormats;
        pluginFormats.resize(types.size(), nvinfer1::TensorFormat::kLINEAR);
        size_t const dataInputs = record.inputs.size() - static_cast<size_t>(layer.plugin->nbShapeInputs);
        for (size_t i = dataInputs; i < record.inputs.size(); ++i)
        {
            types.insert(types.begin() + static_cast<std::ptrdiff_t>(i), model.tensors[record.inputs[i]].type);
            pluginFormats.insert(
                pluginFormats.begin() + static_cast<std::ptrdiff_t>(i), nvinfer1::TensorFormat::kLINEAR);
        }
    }
    auto use = [&](int32_t t, size_t slot) {
        plan::TensorRecord const& tensor = model.tensors[t];
        // Plugins read and write the formats they negotiated (shape inputs: linear); built-in layers, the formats the
        // builder chose.
        nvinfer1::TensorFormat const format = layer.plugin == nullptr ? plan::slotFormat(model, record, slot)
            : slot < pluginFormats.size()                             ? pluginFormats[slot]
                                                                      : nvinfer1::TensorFormat::kLINEAR;
        TensorUse u{tensor.name, slot < types.size() ? types[slot] : tensor.type, format, {}};
        for (size_t axis = 0; axis < tensor.dims.size(); ++axis)
        {
            shape::Expr const& extent = engine.dimExpr(tensor.dims[axis]);
            u.dims.push_back(shapes ? (*shapes)[t].d[axis] : extent.isConstant() ? extent.getConstantValue() : -1);
        }
        return u;
    };
    for (size_t i = 0; i < record.inputs.size(); ++i)
    {
        if (record.inputs[i] >= 0)
        {
            layer.inputs.push_back(use(record.inputs[i], i));
        }
    }
    for (size_t o = 0; o < record.outputs.size(); ++o)
    {
        layer.outputs.push_back(use(record.outputs[o], record.inputs.size() + o));
    }
    return layer;
}

json toJson(LayerDescription const& layer)
{
    auto tensors = [](std::vector<TensorUse> const& list) {
        json array = json::array();
        for (TensorUse const& t : list)
        {
            array.push_back(
                {{"Name", t.name}, {"Dimensions", t.dims}, {"Format/Datatype", formatOf(t.type, t.format)}});
        }
        return array;
    };
    json object{{"Name", layer.name}, {"LayerType", layer.type}, {"Inputs", tensors(layer.inputs)},
        {"Outputs", tensors(layer.outputs)}};
    if (layer.precision)
    {
        object["Precision"] = dataTypeName(*layer.precision);
    }
    if (!layer.tactic.empty())
    {
        object["TacticName"] = layer.tactic;
    }
    if (!layer.viewOf.empty())
    {
        object["ViewOf"] = layer.viewOf;
    }
    if (layer.plugin != nullptr)
    {
        object["Plugin"] = {{"Name", layer.plugin->payload.name}, {"Version", layer.plugin->payload.version},
            {"Namespace", layer.plugin->payload.pluginNamespace},
            {"Interface", plugin::familyName(layer.plugin->family)}, {"Library", layer.plugin->library}};
        if (layer.plugin->tactic != 0)
        {
            // The tactic the builder chose among the plugin's, written as TensorRT writes tactic values.
            char value[24];
            std::snprintf(value, sizeof(value), "0x%016x", static_cast<uint32_t>(layer.plugin->tactic));
            object["TacticValue"] = value;
        }
    }
    return object;
}

std::string oneLine(LayerDescription const& layer)
{
    auto tensors = [](std::vector<TensorUse> const& list) {
        std::string text;
        for (TensorUse const& t : list)
        {
            text += (text.empty() ? "" : ", ") + t.name + " " + dataTypeName(t.type) + " [";
            for (size_t axis = 0; axis < t.dims.size(); ++axis)
            {
                text += (axis ? "," : "") + std::to_string(t.dims[axis]);
            }
            text += "]";
        }
        return text;
    };
    std::string line = layer.name + " [" + layer.type + "]";
    if (layer.precision)
    {
        line += " precision " + dataTypeName(*layer.precision);
    }
    if (layer.plugin != nullptr)
    {
        line += " plugin " + layer.plugin->payload.name + " version " + layer.plugin->payload.version;
    }
    if (!layer.viewOf.empty())
    {
        line += " view of " + layer.viewOf;
    }
    return line + ": " + tensors(layer.inputs) + " -> " + tensors(layer.outputs);
}

} // namespace

void EngineInspector::reportError(std::string const& message) const
{
    logError(message);
    if (mRecorder != nullptr)
    {
        mRecorder->reportError(nvinfer1::ErrorCode::kINVALID_ARGUMENT, message.c_str());
    }
}

bool EngineInspector::setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept
{
    if (context != nullptr && &context->getEngine() != &mEngine)
    {
        reportError("IEngineInspector::setExecutionContext: the context belongs to another engine");
        return false;
    }
    mContext = context;
    return true;
}

char const* EngineInspector::getLayerInformation(
    int32_t layerIndex, nvinfer1::LayerInformationFormat format) const noexcept
{
    try
    {
        auto const& layers = mEngine.model().layers;
        if (layerIndex < 0 || static_cast<size_t>(layerIndex) >= layers.size())
        {
            reportError("IEngineInspector::getLayerInformation: layer " + std::to_string(layerIndex)
                + " does not exist (the engine has " + std::to_string(layers.size()) + ")");
            return nullptr;
        }
        std::vector<nvinfer1::Dims> shapes;
        std::string ignored; // without known shapes, -1 stands for run-time extents
        auto const* context = dynamic_cast<ExecutionContext const*>(mContext);
        bool const concrete = context != nullptr && context->computeShapes(shapes, ignored);
        LayerDescription const layer = describe(mEngine, static_cast<size_t>(layerIndex), concrete ? &shapes : nullptr);
        mText = format == nvinfer1::LayerInformationFormat::kJSON ? toJson(layer).dump() : oneLine(layer);
        return mText.c_str();
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IEngineInspector::getLayerInformation: ") + e.what());
        return nullptr;
    }
}

char const* EngineInspector::getEngineInformation(nvinfer1::LayerInformationFormat format) const noexcept
{
    try
    {
        plan::PlanModel const& model = mEngine.model();
        std::vector<nvinfer1::Dims> shapes;
        std::string ignored;
        auto const* context = dynamic_cast<ExecutionContext const*>(mContext);
        bool const concrete = context != nullptr && context->computeShapes(shapes, ignored);
        std::vector<LayerDescription> layers;
        for (size_t l = 0; l < model.layers.size(); ++l)
        {
            layers.push_back(describe(mEngine, l, concrete ? &shapes : nullptr));
        }
        if (format == nvinfer1::LayerInformationFormat::kONELINE)
        {
            mText.clear();
            for (LayerDescription const& layer : layers)
            {
                mText += oneLine(layer) + "\n";
            }
            return mText.c_str();
        }
        json engine{{"Layers", json::array()}, {"Bindings", json::array()}, {"PluginsNeeded", json::array()},
            {"ActivationMemoryBytes", model.arenaBytes}, {"WorkspaceBytes", model.workspaceBytes}};
        for (LayerDescription const& layer : layers)
        {
            engine["Layers"].push_back(toJson(layer));
        }
        for (int32_t io : model.ioTensors)
        {
            engine["Bindings"].push_back(model.tensors[io].name);
        }
        for (plan::PluginRequirement const& need : model.manifest)
        {
            engine["PluginsNeeded"].push_back({{"Name", need.name}, {"Version", need.version},
                {"Namespace", need.pluginNamespace}, {"Interface", need.interfaceKind}, {"Library", need.library}});
        }
        mText = engine.dump();
        return mText.c_str();
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IEngineInspector::getEngineInformation: ") + e.what());
        return nullptr;
    }
}

} // namespace kiln::runtime
