// What the collection's two IPluginV2 bases share (dynamic_plugin.h for IPluginV2DynamicExt, legacy_plugin.h for
// IPluginV2Ext): the parameters, the names and namespace, the life cycle, clone, serialization through the
// payload, and the run on Kiln's CPU backend. `Interface` is the TensorRT interface the plugin implements.
#pragma once

#include "fields.h"
#include "payload.h"
#include "plugin_tensors.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::plugins
{

template <typename Derived, typename Params, typename Interface>
class V2PluginBase : public Interface, public kiln::IHostPlugin
{
public:
    using ParamsType = Params;

    explicit V2PluginBase(Params params)
        : mParams(std::move(params))
    {
    }

    //! Throws PluginError unless `params` are valid; a plugin with rules hides this.
    static void check(Params const& /*params*/) { }

    //! The payload: the parameters. A base or plugin with more state to keep hides this (and deserialize).
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
    void terminate() noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    Interface* clone() const noexcept override
    {
        return guarded(Derived::kName, "clone", static_cast<Interface*>(nullptr),
            [this]() -> Interface* { return new Derived(derived()); });
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
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override
    {
        return runOnHost(derived(), PluginTensors{inputDesc, outputDesc, inputs, outputs, workspace});
    }

protected:
    Derived const& derived() const
    {
        return static_cast<Derived const&>(*this);
    }

    Params mParams;

private:
    std::vector<uint8_t> payload() const
    {
        PayloadWriter writer;
        derived().save(writer);
        return writer.bytes();
    }
    std::string mNamespace;
};

} // namespace kiln::plugins
