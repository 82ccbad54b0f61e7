// kiln/PluginRegistry.h: the registry's answers for code above the library, through the public API where it has
// them, so that they work on any IPluginRegistry.
#include "plugin/closest_names.h"
#include "plugin/registry.h"

#include <kiln/PluginRegistry.h>

#include <cstring>
#include <vector>

namespace kiln
{

nvinfer1::IPluginCreatorInterface* findPluginCreator(
    nvinfer1::IPluginRegistry& registry, char const* name, char const* version, char const* pluginNamespace) noexcept
{
    if (name == nullptr || version == nullptr || pluginNamespace == nullptr)
    {
        return nullptr;
    }
    try
    {
        // Kiln's registry logs an error for a missing creator in getCreator; its findCreator does not.
        if (auto* kilnRegistry = dynamic_cast<plugin::PluginRegistry*>(&registry))
        {
            return kilnRegistry->findCreator(name, version, pluginNamespace).creator;
        }
        return registry.getCreator(name, version, pluginNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

std::string describeClosestPluginCreators(
    nvinfer1::IPluginRegistry& registry, char const* name, char const* version, char const* pluginNamespace) noexcept
{
    try
    {
        int32_t count = 0;
        nvinfer1::IPluginCreatorInterface* const* creators = registry.getAllCreators(&count);
        std::vector<plugin::CreatorKey> registered;
        for (int32_t i = 0; creators != nullptr && i < count; ++i)
        {
            nvinfer1::IPluginCreatorInterface* creator = creators[i];
            if (creator == nullptr)
            {
                continue;
            }
            if (std::strcmp(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1") == 0)
            {
                auto* v2 = static_cast<nvinfer1::IPluginCreator*>(creator);
                registered.push_back({v2->getPluginName(), v2->getPluginVersion(), v2->getPluginNamespace()});
            }
            else
            {
                auto* v3 = static_cast<nvinfer1::IPluginCreatorV3One*>(creator);
                registered.push_back({v3->getPluginName(), v3->getPluginVersion(), v3->getPluginNamespace()});
            }
        }
        auto const text = [](char const* s) { return std::string(s != nullptr ? s : ""); };
        return plugin::describeClosestKeys({text(name), text(version), text(pluginNamespace)}, registered);
    }
    catch (...)
    {
        return {};
    }
}

std::string pluginLibraryOf(nvinfer1::IPluginCreatorInterface const& creator) noexcept
{
    try
    {
        return plugin::globalPluginRegistry().libraryOf(&creator);
    }
    catch (...)
    {
        return {};
    }
}

} // namespace kiln
