// The adapter for IPluginV3 (through its IPluginV3OneCore/Build/Runtime capabilities).
#include "plugin/adapter/plugin_adapter.h"
#include "plugin/adapter/plugin_call.h"
#include "plugin/adapter/plugin_fields.h"

#include <kiln/HostPlugin.h>

#include <algorithm>

namespace kiln::plugin
{
namespace
{

using nvinfer1::DimsExprs;

//! The most tactics one plugin may offer: far above any real plugin's count, it keeps a count a plugin returns from
//! sizing a list without bound.
constexpr int32_t kMaxTactics = 4096;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginTensorDesc;

//! What a V3 plugin gets from its execution context: the context's allocator (null on the CPU backend) and its
//! error recorder as it is when asked, since the application may set one after the plugin attached.
class ResourceContext final : public nvinfer1::IPluginResourceContext
{
public:
    explicit ResourceContext(ContextResources const& resources)
        : mResources(resources)
    {
    }
    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override
    {
        return mResources.allocator;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mResources.recorder;
    }

private:
    ContextResources const& mResources;
};

class V3Adapter final : public PluginAdapter
{
public:
    V3Adapter(nvinfer1::IPluginV3* plugin, std::string name, std::string version, std::string ns)
        : PluginAdapter(PluginFamily::kV3, std::move(name), std::move(version), std::move(ns))
        , mPlugin(plugin)
    {
    }

    ~V3Adapter() override
    {
        callPlugin(description(), "runtime", "~IPluginV3", "", 0, [&] { return delete mPlugin, 0; });
    }

    int32_t nbOutputs() override
    {
        auto* build = buildCapability();
        if (build == nullptr)
        {
            return -1;
        }
        int32_t const count
            = callPlugin(description(), "network", "getNbOutputs", "", -1, [&] { return build->getNbOutputs(); });
        return checkedOutputCount(description(), count);
    }

    bool outputTypes(std::vector<nvinfer1::DataType> const& inputTypes, std::vector<nvinfer1::DataType>& outputTypes,
        std::string& error) override
    {
        auto* build = buildCapability();
        int32_t const count = nbOutputs();
        if (build == nullptr || count < 0)
        {
            error = build ? "getNbOutputs returned " + std::to_string(count) : "it has no build capability";
            return false;
        }
        outputTypes.assign(count, nvinfer1::DataType::kFLOAT);
        int32_t const status = callPlugin(description(), "network", "getOutputDataTypes", "", -1, [&] {
            return build->getOutputDataTypes(
                outputTypes.data(), count, inputTypes.data(), static_cast<int32_t>(inputTypes.size()));
        });
        if (status != 0)
        {
            error = "getOutputDataTypes returned " + std::to_string(status);
            return false;
        }
        return true;
    }

    bool outputShapes(std::vector<DimsExprs> const& inputs, std::vector<DimsExprs> const& shapeInputs,
        nvinfer1::IExprBuilder& builder, std::vector<DimsExprs>& outputs, std::string& error) override
    {
        auto* build = buildCapability();
        int32_t const count = nbOutputs();
        if (build == nullptr || count < 0)
        {
            error = "it has no build capability";
            return false;
        }
        outputs.assign(count, DimsExprs{});
        int32_t const status = callPlugin(description(), "network", "getOutputShapes", "", -1, [&] {
            return build->getOutputShapes(inputs.data(), static_cast<int32_t>(inputs.size()), shapeInputs.data(),
                static_cast<int32_t>(shapeInputs.size()), outputs.data(), count, builder);
        });
        if (status != 0)
        {
            error = "getOutputShapes returned " + std::to_string(status);
            return false;
        }
        return true;
    }

    bool supportsCombination(
        int32_t pos, std::vector<DynamicPluginTensorDesc> const& inOut, int32_t nbInputs, int32_t nbOutputs) override
    {
        auto* build = buildCapability();
        return build
            && callPlugin(description(), "build", "supportsFormatCombination", "pos " + std::to_string(pos), false,
                [&] { return build->supportsFormatCombination(pos, inOut.data(), nbInputs, nbOutputs); });
    }

    bool configure(std::vector<DynamicPluginTensorDesc> const& inputs,
        std::vector<DynamicPluginTensorDesc> const& outputs, std::string& error) override
    {
        auto* build = buildCapability();
        int32_t status = build ? callPlugin(description(), "build", "configurePlugin", "", -1,
                             [&] {
                                 return build->configurePlugin(inputs.data(), static_cast<int32_t>(inputs.size()),
                                     outputs.data(), static_cast<int32_t>(outputs.size()));
                             })
                               : -1;
        if (status != 0)
        {
            error = "configurePlugin returned " + std::to_string(status);
            return false;
        }
        // TensorRT also tells the plugin the profile's kOPT shapes through onShapeChange.
        std::vector<PluginTensorDesc> in, out;
        for (auto d : inputs)
        {
            d.desc.dims = d.opt;
            in.push_back(d.desc);
        }
        for (auto d : outputs)
        {
            d.desc.dims = d.opt;
            out.push_back(d.desc);
        }
        return shapesChanged(in, out, error);
    }

    size_t workspaceSize(std::vector<DynamicPluginTensorDesc> const& inputs,
        std::vector<DynamicPluginTensorDesc> const& outputs) override
    {
        auto* build = buildCapability();
        return build ? callPlugin(description(), "build", "getWorkspaceSize", "", size_t{0},
                   [&] {
                       return build->getWorkspaceSize(inputs.data(), static_cast<int32_t>(inputs.size()),
                           outputs.data(), static_cast<int32_t>(outputs.size()));
                   })
                     : 0;
    }

    bool validTactics(std::vector<int32_t>& tactics, std::string& error) override
    {
        tactics.clear();
        auto* build = buildCapability();
        int32_t const count = build
            ? callPlugin(description(), "build", "getNbTactics", "", -1, [&] { return build->getNbTactics(); })
            : 0;
        if (count < 0 || count > kMaxTactics)
        {
            error = "getNbTactics returned " + std::to_string(count);
            return false;
        }
        if (count == 0)
        {
            return true;
        }
        tactics.assign(static_cast<size_t>(count), 0);
        int32_t const status = callPlugin(description(), "build", "getValidTactics", "", -1,
            [&] { return build->getValidTactics(tactics.data(), count); });
        if (status != 0)
        {
            error = "getValidTactics returned " + std::to_string(status);
            return false;
        }
        for (size_t i = 0; i < tactics.size(); ++i)
        {
            // TensorRT reserves 0 for the default tactic, and each tactic must be unique.
            if (tactics[i] == 0 || std::find(tactics.begin(), tactics.begin() + i, tactics[i]) != tactics.begin() + i)
            {
                error = "getValidTactics gave tactic " + std::to_string(tactics[i])
                    + (tactics[i] == 0 ? ", which is reserved for the default" : " twice");
                return false;
            }
        }
        return true;
    }

    bool setTactic(int32_t tactic, std::string& error) override
    {
        auto* runtime = runtimeCapability();
        int32_t const status = runtime ? callPlugin(description(), "runtime", "setTactic", std::to_string(tactic), -1,
                                   [&] { return runtime->setTactic(tactic); })
                                       : -1;
        if (status != 0)
        {
            error = runtime ? "setTactic(" + std::to_string(tactic) + ") returned " + std::to_string(status)
                            : "it has no runtime capability";
            return false;
        }
        return true;
    }

    int32_t aliasedInput(int32_t output) override
    {
        auto* build = dynamic_cast<nvinfer1::v_2_0::IPluginV3OneBuild*>(buildCapability());
        return build ? callPlugin(description(), "build", "getAliasedInput", std::to_string(output), -1,
                   [&] { return build->getAliasedInput(output); })
                     : -1;
    }

    bool initialize(std::string&) override
    {
        return true; // V3 plugins are created initialised
    }

    std::unique_ptr<PluginAdapter> clone(std::string& error) override
    {
        nvinfer1::IPluginV3* copy = callPlugin(description(), "build", "clone", "",
            static_cast<nvinfer1::IPluginV3*>(nullptr), [&] { return mPlugin->clone(); });
        if (copy == nullptr)
        {
            error = "clone returned null";
            return nullptr;
        }
        return adaptPluginV3(copy, error);
    }

    bool serialize(PluginPayload& payload, std::string& error) override
    {
        auto* runtime = runtimeCapability();
        if (runtime == nullptr)
        {
            error = "it has no runtime capability";
            return false;
        }
        nvinfer1::PluginFieldCollection const* fields = callPlugin(description(), "build", "getFieldsToSerialize", "",
            static_cast<nvinfer1::PluginFieldCollection const*>(nullptr),
            [&] { return runtime->getFieldsToSerialize(); });
        if (fields == nullptr)
        {
            error = "getFieldsToSerialize returned null";
            return false;
        }
        payload.name = name();
        payload.version = version();
        payload.pluginNamespace = pluginNamespace();
        payload.family = family();
        if (!encodeFields(*fields, payload.bytes, error))
        {
            error = "getFieldsToSerialize: " + error;
            return false;
        }
        return true;
    }

    std::unique_ptr<PluginAdapter> attachToContext(
        ContextResources const& contextResources, std::string& error) override
    {
        auto* runtime = runtimeCapability();
        if (runtime == nullptr)
        {
            error = "it has no runtime capability";
            return nullptr;
        }
        auto resources = std::make_unique<ResourceContext>(contextResources);
        nvinfer1::IPluginV3* attached = callPlugin(description(), "runtime", "attachToContext", "",
            static_cast<nvinfer1::IPluginV3*>(nullptr), [&] { return runtime->attachToContext(resources.get()); });
        if (attached == nullptr)
        {
            error = "attachToContext returned null (it must return a clone of the plugin)";
            return nullptr;
        }
        std::unique_ptr<PluginAdapter> adapter = adaptPluginV3(attached, error);
        if (adapter)
        {
            static_cast<V3Adapter&>(*adapter).mResources = std::move(resources);
        }
        return adapter;
    }

    bool shapesChanged(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        std::string& error) override
    {
        auto* runtime = runtimeCapability();
        int32_t const status = runtime ? callPlugin(description(), "runtime", "onShapeChange", "", -1,
                                   [&] {
                                       return runtime->onShapeChange(inputs.data(), static_cast<int32_t>(inputs.size()),
                                           outputs.data(), static_cast<int32_t>(outputs.size()));
                                   })
                                       : -1;
        if (status != 0)
        {
            error = "onShapeChange returned " + std::to_string(status);
            return false;
        }
        return true;
    }

    bool runOnHost(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        void const* const* inputData, void* const* outputData, void* workspace, std::string& error) override
    {
        kiln::IHostPlugin* host = hostPlugin();
        if (host == nullptr)
        {
            error = "it does not implement kiln::IHostPlugin, so it cannot run on the CPU backend";
            return false;
        }
        int32_t const status = callPluginTraced(enqueueHostTrace(), description(), "enqueueHost", -1,
            [&] { return host->enqueueHost(inputs.data(), outputs.data(), inputData, outputData, workspace); });
        if (status != 0)
        {
            error = "enqueueHost returned " + std::to_string(status);
            return false;
        }
        return true;
    }

    bool hasHostExecution() override
    {
        return hostPlugin() != nullptr;
    }

    bool runOnDevice(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        void const* const* inputData, void* const* outputData, void* workspace, cudaStream_t stream,
        std::string& error) override
    {
        nvinfer1::IPluginV3OneRuntime* runtime = runtimeCapability();
        if (runtime == nullptr)
        {
            error = "it has no IPluginV3OneRuntime capability";
            return false;
        }
        int32_t const status = callPluginTraced(enqueueTrace(), description(), "enqueue", -1,
            [&] { return runtime->enqueue(inputs.data(), outputs.data(), inputData, outputData, workspace, stream); });
        if (status != 0)
        {
            error = "enqueue returned " + std::to_string(status);
            return false;
        }
        return true;
    }

private:
    nvinfer1::IPluginV3OneBuild* buildCapability()
    {
        return dynamic_cast<nvinfer1::IPluginV3OneBuild*>(capability(nvinfer1::PluginCapabilityType::kBUILD));
    }
    nvinfer1::IPluginV3OneRuntime* runtimeCapability()
    {
        return dynamic_cast<nvinfer1::IPluginV3OneRuntime*>(capability(nvinfer1::PluginCapabilityType::kRUNTIME));
    }
    nvinfer1::IPluginCapability* capability(nvinfer1::PluginCapabilityType type)
    {
        return callPlugin(description(), "build", "getCapabilityInterface", "",
            static_cast<nvinfer1::IPluginCapability*>(nullptr), [&] { return mPlugin->getCapabilityInterface(type); });
    }
    kiln::IHostPlugin* hostPlugin()
    {
        // The host interface may sit on the root object or on the runtime capability's object.
        if (auto* host = dynamic_cast<kiln::IHostPlugin*>(mPlugin))
        {
            return host;
        }
        return dynamic_cast<kiln::IHostPlugin*>(runtimeCapability());
    }

    nvinfer1::IPluginV3* mPlugin;
    std::unique_ptr<ResourceContext> mResources;
};

} // namespace

std::unique_ptr<PluginAdapter> adaptPluginV3(nvinfer1::IPluginV3* plugin, std::string& error)
{
    if (plugin == nullptr)
    {
        error = "the plugin is null";
        return nullptr;
    }
    auto* core = dynamic_cast<nvinfer1::IPluginV3OneCore*>(callPlugin("(unidentified IPluginV3)", "network",
        "getCapabilityInterface", "kCORE", static_cast<nvinfer1::IPluginCapability*>(nullptr),
        [&] { return plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE); }));
    std::string name, version, ns;
    bool const ok = core
        && callPlugin("(unidentified IPluginV3)", "network", "getPluginName/Version/Namespace", "", false, [&] {
               name = core->getPluginName() ? core->getPluginName() : "";
               version = core->getPluginVersion() ? core->getPluginVersion() : "";
               ns = core->getPluginNamespace() ? core->getPluginNamespace() : "";
               return true;
           });
    if (!ok || name.empty())
    {
        error = core ? "the plugin does not report its name (IPluginV3OneCore::getPluginName)"
                     : "the plugin has no IPluginV3OneCore capability";
        callPlugin("(unidentified IPluginV3)", "network", "~IPluginV3", "", 0, [&] { return delete plugin, 0; });
        return nullptr;
    }
    return std::make_unique<V3Adapter>(plugin, std::move(name), std::move(version), std::move(ns));
}

} // namespace kiln::plugin
