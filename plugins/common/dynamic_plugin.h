// The base of the collection's IPluginV2DynamicExt plugins: everything but the plugin's math, shapes and formats
// (what it shares with legacy_plugin.h is in v2_plugin_base.h).
//
//     class GeluPlugin : public DynamicPlugin<GeluPlugin, GeluParams>
//     {
//     public:
//         static constexpr char const* kName = "CustomGeluPluginDynamic";
//         static constexpr char const* kVersion = "1";
//         using DynamicPlugin::DynamicPlugin;
//         static void check(GeluParams const& params); // optional: throws PluginError on a bad field
//         // getNbOutputs, getOutputDimensions, supportsFormatCombination, getOutputDataType, runHost, runDevice
//     };
//
// The payload is the parameters (payload.h). A plugin with more state to keep hides deserialize and save.
#pragma once

#include "v2_plugin_base.h"

namespace kiln::plugins
{

template <typename Derived, typename Params>
class DynamicPlugin : public V2PluginBase<Derived, Params, nvinfer1::IPluginV2DynamicExt>
{
    using Base = V2PluginBase<Derived, Params, nvinfer1::IPluginV2DynamicExt>;

public:
    explicit DynamicPlugin(Params params)
        : Base(std::move(params))
    {
    }

    //! The plugin a payload written by save() describes.
    static Derived* deserialize(PayloadReader& reader)
    {
        Params params;
        params.visit(reader);
        reader.finish();
        Derived::check(params);
        return new Derived(std::move(params));
    }

    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        return runOnDevice(this->derived(), PluginTensors{inputDesc, outputDesc, inputs, outputs, workspace}, stream);
    }
};

} // namespace kiln::plugins
