// The base of the collection's IPluginV2DynamicExt plugins: everything but the plugin's math, shapes and formats.
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

#include "fields.h"
#include "payload.h"
#include "plugin_tensors.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <string>

namespace kiln::plugins
{

template <typename Derived, typename Params>
class DynamicPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    using ParamsType = Params;

    explicit DynamicPlugin(Params params)
        : mParams(std::move(params))
    {
    }

    //! Throws PluginError unless `params` are valid; a plugin with rules hides this.
    static void check(Params const& /*params*/) {}

    //! The plugin a payload written by save() describes.
    static Derived* deserialize(PayloadReader& reader)
    {
        Params params;
        params.visit(reader);
        reader.finish();
        Derived::check(params);
        return new Derived(std::move(params));
    }
    void save(PayloadWriter& writer) const
    {
        const_cast<Params&>(mParams).visit(writer); // the writer only reads
    }

    Params const& params() const
    {
        return mParams;
    }

    char const* getPluginType() const noexcept override
    {
        return Derived::kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return Derived::kVersion;
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override {}
    void destroy() noexcept override
    {
        delete this;
    }
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        return guarded(Derived::kName, "clone", static_cast<nvinfer1::IPluginV2DynamicExt*>(nullptr),
            [this]() -> nvinfer1::IPluginV2DynamicExt* { return new Derived(static_cast<Derived const&>(*this)); });
    }
    size_t getSerializationSize() const noexcept override
    {
        return guarded(Derived::kName, "getSerializationSize", size_t{0}, [this] { return payload().size(); });
    }
    void serialize(void* buffer) const noexcept override
    {
        guarded(Derived::kName, "serialize", 0, [&] {
            std::vector<uint8_t> const bytes = payload();
            std::memcpy(buffer, bytes.data(), bytes.size());
            return 0;
        });
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
        return runOnDevice(derived(), PluginTensors{inputDesc, outputDesc, inputs, outputs, workspace}, stream);
    }
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override
    {
        return runOnHost(derived(), PluginTensors{inputDesc, outputDesc, inputs, outputs, workspace});
    }

protected:
    Params mParams;

private:
    Derived const& derived() const
    {
        return static_cast<Derived const&>(*this);
    }
    std::vector<uint8_t> payload() const
    {
        PayloadWriter writer;
        derived().save(writer);
        return writer.bytes();
    }
    std::string mNamespace;
};

} // namespace kiln::plugins
