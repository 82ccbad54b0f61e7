#include "plugin/adapter/plugin_adapter.h"

#include "plugin/adapter/plugin_call.h"
#include "plugin/adapter/plugin_fields.h"
#include "plugin/registry.h"

#include <cstring>

namespace kiln::plugin
{

std::string describePlugin(std::string const& name, std::string const& version, std::string const& ns)
{
    return name + " (version " + version + ", namespace \"" + ns + "\")";
}

int32_t checkedOutputCount(std::string const& plugin, int32_t count)
{
    if (count < 0 || count > kMaxPluginOutputs)
    {
        logError("plugin " + plugin + ": getNbOutputs returned " + std::to_string(count) + "; a plugin has 0 to "
            + std::to_string(kMaxPluginOutputs) + " outputs");
        return -1;
    }
    return count;
}

char const* familyName(PluginFamily family)
{
    switch (family)
    {
    case PluginFamily::kV2: return "IPluginV2";
    case PluginFamily::kV2_EXT: return "IPluginV2Ext";
    case PluginFamily::kV2_IOEXT: return "IPluginV2IOExt";
    case PluginFamily::kV2_DYNAMICEXT: return "IPluginV2DynamicExt";
    case PluginFamily::kV3: return "IPluginV3";
    }
    return "unknown plugin interface";
}

std::unique_ptr<PluginAdapter> recreatePlugin(
    PluginPayload const& payload, std::string const& layerName, std::string const& library, std::string& error)
{
    std::string const who = describePlugin(payload.name, payload.version, payload.pluginNamespace);
    PluginRegistry const& registry = globalPluginRegistry();
    CreatorMatch const match = registry.findCreator(payload.name, payload.version, payload.pluginNamespace);
    nvinfer1::IPluginCreatorInterface* creator = match.creator;
    if (creator == nullptr)
    {
        error = "layer \"" + layerName + "\" needs plugin " + who + ", which is not registered"
            + (library.empty() ? std::string(" (the plan names no library: the plugin came from the application)")
                               : " (the plan was built with it from " + library + ": load that library first)")
            + ". " + registry.closestNames(payload.name, payload.version, payload.pluginNamespace);
        return nullptr;
    }
    bool const isV2Creator = std::strcmp(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1") == 0;
    if (isV2Creator != (payload.family != PluginFamily::kV3))
    {
        error = "layer \"" + layerName + "\": the registered creator of " + who + " makes "
            + (isV2Creator ? "IPluginV2-family" : "IPluginV3") + " plugins, but the plan holds a "
            + familyName(payload.family) + " plugin";
        return nullptr;
    }
    if (isV2Creator)
    {
        auto* v2 = static_cast<nvinfer1::IPluginCreator*>(creator);
        nvinfer1::IPluginV2* plugin = callPlugin(who, "runtime", "deserializePlugin",
            std::to_string(payload.bytes.size()) + " bytes", static_cast<nvinfer1::IPluginV2*>(nullptr),
            [&] { return v2->deserializePlugin(layerName.c_str(), payload.bytes.data(), payload.bytes.size()); });
        if (plugin == nullptr)
        {
            error = "layer \"" + layerName + "\": " + who + ": deserializePlugin returned null";
            return nullptr;
        }
        return adaptPluginV2(plugin, error);
    }
    DecodedFields fields;
    if (!fields.decode(payload.bytes, error))
    {
        error = "layer \"" + layerName + "\": the plan's fields for " + who + " are malformed: " + error;
        return nullptr;
    }
    auto* v3 = static_cast<nvinfer1::IPluginCreatorV3One*>(creator);
    nvinfer1::IPluginV3* plugin = callPlugin(who, "runtime", "createPlugin", "kRUNTIME",
        static_cast<nvinfer1::IPluginV3*>(nullptr),
        [&] { return v3->createPlugin(layerName.c_str(), fields.collection(), nvinfer1::TensorRTPhase::kRUNTIME); });
    if (plugin == nullptr)
    {
        error = "layer \"" + layerName + "\": " + who + ": createPlugin(kRUNTIME) returned null";
        return nullptr;
    }
    return adaptPluginV3(plugin, error);
}

} // namespace kiln::plugin
