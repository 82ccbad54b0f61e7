// Creators for the collection's plugins: one template per plugin family, so a plugin never writes its own.
// The field list comes from the plugin's parameters (fields.h); a bad field is logged naming plugin, field and value,
// and the creator returns nullptr, as TensorRT's do.
#pragma once

#include "fields.h"
#include "payload.h"

#include <NvInferRuntime.h>

#include <string>

namespace kiln::plugins
{

//! The creator of a V2 plugin made with DynamicPlugin (IPluginV2DynamicExt) or LegacyPlugin (IPluginV2Ext).
template <typename Plugin>
class V2PluginCreator : public nvinfer1::IPluginCreator
{
public:
    using Params = typename Plugin::ParamsType;

    explicit V2PluginCreator(std::string pluginNamespace)
        : mNamespace(std::move(pluginNamespace))
    {
    }

    char const* getPluginName() const noexcept override
    {
        return Plugin::kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return Plugin::kVersion;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return mCatalog.collection();
    }
    nvinfer1::IPluginV2* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        return guarded(
            Plugin::kName, "createPlugin", static_cast<nvinfer1::IPluginV2*>(nullptr), [&]() -> nvinfer1::IPluginV2* {
                Params params;
                params.visit(FieldReader(Plugin::kName, fc));
                Plugin::check(params);
                return named(new Plugin(std::move(params)));
            });
    }
    nvinfer1::IPluginV2* deserializePlugin(char const* /*name*/, void const* data, size_t length) noexcept override
    {
        return guarded(Plugin::kName, "deserializePlugin", static_cast<nvinfer1::IPluginV2*>(nullptr),
            [&]() -> nvinfer1::IPluginV2* {
                PayloadReader reader(Plugin::kName, data, length);
                return named(Plugin::deserialize(reader));
            });
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    Plugin* named(Plugin* plugin) const
    {
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    std::string mNamespace;
    FieldCatalog mCatalog{Params{}};
};

//! The creator of an IPluginV3 plugin made with V3Plugin: the same fields at build time and when a plan is loaded.
template <typename Plugin>
class V3PluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    using Params = typename Plugin::ParamsType;

    explicit V3PluginCreator(std::string pluginNamespace)
        : mNamespace(std::move(pluginNamespace))
    {
    }

    char const* getPluginName() const noexcept override
    {
        return Plugin::kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return Plugin::kVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return mCatalog.collection();
    }
    nvinfer1::IPluginV3* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase /*phase*/) noexcept override
    {
        return guarded(
            Plugin::kName, "createPlugin", static_cast<nvinfer1::IPluginV3*>(nullptr), [&]() -> nvinfer1::IPluginV3* {
                Params params;
                params.visit(FieldReader(Plugin::kName, fc));
                Plugin::check(params);
                return new Plugin(std::move(params), mNamespace);
            });
    }

private:
    std::string mNamespace;
    FieldCatalog mCatalog{Params{}};
};

} // namespace kiln::plugins
