// The base of the collection's IPluginV3 plugins (IPluginV3OneCore, IPluginV3OneBuild, IPluginV3OneRuntime):
// everything but the plugin's math, shapes and formats.
//
//     class RoiAlignPlugin : public V3Plugin<RoiAlignPlugin, RoiAlignParams>
//     {
//     public:
//         static constexpr char const* kName = "ROIAlign_TRT";
//         static constexpr char const* kVersion = "2";
//         using V3Plugin::V3Plugin;
//         static void check(RoiAlignParams const& params); // optional: throws PluginError on a bad field
//         // getNbOutputs, getOutputDataTypes, getOutputShapes, supportsFormatCombination, runHost, runDevice
//     };
//
// A V3 plugin is serialized as its fields (getFieldsToSerialize), so its creator makes it from the same fields in
// both phases.
#pragma once

#include "fields.h"
#include "plugin_tensors.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>

#include <memory>
#include <string>

namespace kiln::plugins
{

template <typename Derived, typename Params>
class V3Plugin : public nvinfer1::IPluginV3,
                 public nvinfer1::IPluginV3OneCore,
                 public nvinfer1::IPluginV3OneBuild,
                 public nvinfer1::IPluginV3OneRuntime,
                 public kiln::IHostPlugin
{
public:
    using ParamsType = Params;

    V3Plugin(Params params, std::string pluginNamespace)
        : mParams(std::move(params))
        , mNamespace(std::move(pluginNamespace))
    {
    }
    V3Plugin(V3Plugin const& other)
        : mParams(other.mParams)
        , mNamespace(other.mNamespace)
    {
    }
    V3Plugin& operator=(V3Plugin const&) = delete;

    //! Throws PluginError unless `params` are valid; a plugin with rules hides this.
    static void check(Params const& /*params*/) { }

    Params const& params() const
    {
        return mParams;
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        return guarded(Derived::kName, "clone", static_cast<nvinfer1::IPluginV3*>(nullptr),
            [this]() -> nvinfer1::IPluginV3* { return new Derived(static_cast<Derived const&>(*this)); });
    }
    char const* getPluginName() const noexcept override
    {
        return Derived::kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return Derived::kVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return guarded(Derived::kName, "getFieldsToSerialize",
            static_cast<nvinfer1::PluginFieldCollection const*>(nullptr), [this] {
                mSerializedFields = std::make_unique<FieldWriter<Params>>(mParams);
                return mSerializedFields->collection();
            });
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
    std::string mNamespace;
    std::unique_ptr<FieldWriter<Params>> mSerializedFields; //!< what getFieldsToSerialize last returned
};

} // namespace kiln::plugins
