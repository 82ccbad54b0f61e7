// One internal interface over every plugin family (IPluginV2, V2Ext, V2IOExt,
// V2DynamicExt, V3), so nothing else in Kiln branches on the plugin's kind.
// Adapters own their plugin object and release it the way its family requires
// (destroy() for V2, delete for V3).
#pragma once

#include "plugin/adapter/plugin_call.h"

#include <NvInfer.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::plugin
{

enum class PluginFamily : int32_t
{
    kV2 = 0,
    kV2_EXT = 1,
    kV2_IOEXT = 2,
    kV2_DYNAMICEXT = 3,
    kV3 = 4,
};

//! "IPluginV2", "IPluginV2Ext", ... as users know them.
char const* familyName(PluginFamily family);

//! Whether the family's attachToContext takes cuDNN and cuBLAS handles: IPluginV2Ext and the families derived from it.
inline bool receivesLibraryHandles(PluginFamily family)
{
    return family == PluginFamily::kV2_EXT || family == PluginFamily::kV2_IOEXT
        || family == PluginFamily::kV2_DYNAMICEXT;
}

//! What a plan stores to find and recreate a plugin at load time.
struct PluginPayload
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    PluginFamily family{PluginFamily::kV2_DYNAMICEXT};
    std::vector<uint8_t> bytes; //!< V2: serialize(); V3: the fields of getFieldsToSerialize, encoded (fields.h)
};

//! What an execution context lends the plugins attached to it. The context owns it and it outlives them; the
//! recorder is the context's current one. On the CPU backend cudnn, cublas and allocator are null.
struct ContextResources
{
    cudnnContext* cudnn{nullptr};
    cublasContext* cublas{nullptr};
    nvinfer1::IGpuAllocator* allocator{nullptr};
    nvinfer1::IErrorRecorder* recorder{nullptr};
};

//! The most outputs one plugin may declare. TensorRT states no limit; Kiln's is far above any real plugin's, and
//! keeps a count a plugin returns from sizing a layer's outputs (and every list made per output) without bound.
inline constexpr int32_t kMaxPluginOutputs = 4096;

//! `count` as plugin `plugin` returned it from getNbOutputs, or -1 after logging an error naming the plugin, the
//! count and the limit where it is negative or above kMaxPluginOutputs.
int32_t checkedOutputCount(std::string const& plugin, int32_t count);

class PluginAdapter
{
public:
    virtual ~PluginAdapter() = default;

    PluginFamily family() const
    {
        return mFamily;
    }
    //! Type, version and namespace as the plugin reports them now.
    std::string const& name() const
    {
        return mName;
    }
    std::string const& version() const
    {
        return mVersion;
    }
    std::string const& pluginNamespace() const
    {
        return mNamespace;
    }
    //! For messages: name, version and namespace.
    std::string const& description() const
    {
        return mDescription;
    }

    //! getNbOutputs, checked by checkedOutputCount: -1 where the plugin gave no usable count.
    virtual int32_t nbOutputs() = 0;
    //! Output types from input types.
    virtual bool outputTypes(std::vector<nvinfer1::DataType> const& inputTypes,
        std::vector<nvinfer1::DataType>& outputTypes, std::string& error)
        = 0;
    //! Output shapes as expressions. For the V2 families without dynamic shapes,
    //! the leading dimension is the batch, which the plugin does not see.
    virtual bool outputShapes(std::vector<nvinfer1::DimsExprs> const& inputs,
        std::vector<nvinfer1::DimsExprs> const& shapeInputs, nvinfer1::IExprBuilder& builder,
        std::vector<nvinfer1::DimsExprs>& outputs, std::string& error)
        = 0;
    //! The format negotiation question for position pos; only inOut[0..pos] are meaningful.
    virtual bool supportsCombination(
        int32_t pos, std::vector<nvinfer1::DynamicPluginTensorDesc> const& inOut, int32_t nbInputs, int32_t nbOutputs)
        = 0;
    //! The build-time configuration for one profile (descs hold the profile's bounds).
    virtual bool configure(std::vector<nvinfer1::DynamicPluginTensorDesc> const& inputs,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& outputs, std::string& error)
        = 0;
    virtual size_t workspaceSize(std::vector<nvinfer1::DynamicPluginTensorDesc> const& inputs,
        std::vector<nvinfer1::DynamicPluginTensorDesc> const& outputs)
        = 0;
    //! The tactics the plugin offers once configured (IPluginV3OneBuild::getValidTactics); none for the V2 families,
    //! which have no tactics. False with error where the plugin fails or offers a tactic twice or tactic 0.
    virtual bool validTactics(std::vector<int32_t>& tactics, std::string& error)
    {
        (void) error;
        tactics.clear();
        return true;
    }
    //! IPluginV3OneRuntime::setTactic (V3 only: the V2 families accept any tactic, having none).
    virtual bool setTactic(int32_t tactic, std::string& error)
    {
        (void) tactic;
        (void) error;
        return true;
    }
    //! IPluginV3OneBuildV2::getAliasedInput(output): the input whose memory the output reuses; -1 for none, and for
    //! plugins without that capability.
    virtual int32_t aliasedInput(int32_t output)
    {
        (void) output;
        return -1;
    }
    //! V2 families: initialize(). V3: nothing (V3 plugins are created initialised).
    virtual bool initialize(std::string& error) = 0;
    virtual std::unique_ptr<PluginAdapter> clone(std::string& error) = 0;
    virtual bool serialize(PluginPayload& payload, std::string& error) = 0;

    //! A copy for one execution context: V2Ext and later clone + attachToContext (given the context's cuDNN and
    //! cuBLAS handles and allocator), V3 attachToContext (which returns a clone; its IPluginResourceContext answers
    //! from `resources`, which must outlive the copy). nullptr with error on failure.
    virtual std::unique_ptr<PluginAdapter> attachToContext(ContextResources const& resources, std::string& error) = 0;
    //! Concrete shapes for the next run (DynamicExt: configurePlugin; V3: onShapeChange).
    virtual bool shapesChanged(std::vector<nvinfer1::PluginTensorDesc> const& inputs,
        std::vector<nvinfer1::PluginTensorDesc> const& outputs, std::string& error)
        = 0;
    //! Runs the plugin on host memory through kiln::IHostPlugin.
    virtual bool runOnHost(std::vector<nvinfer1::PluginTensorDesc> const& inputs,
        std::vector<nvinfer1::PluginTensorDesc> const& outputs, void const* const* inputData, void* const* outputData,
        void* workspace, std::string& error)
        = 0;
    //! True if the plugin implements kiln::IHostPlugin (can run on the CPU backend).
    virtual bool hasHostExecution() = 0;
    //! Runs the plugin's own enqueue on device memory and `stream` (the CUDA backend). The static-shape V2
    //! families get the leading dimension of the first input as their batch size.
    virtual bool runOnDevice(std::vector<nvinfer1::PluginTensorDesc> const& inputs,
        std::vector<nvinfer1::PluginTensorDesc> const& outputs, void const* const* inputData, void* const* outputData,
        void* workspace, cudaStream_t stream, std::string& error)
        = 0;

protected:
    PluginAdapter(PluginFamily family, std::string name, std::string version, std::string ns)
        : mFamily(family)
        , mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(ns))
        , mDescription(describePlugin(mName, mVersion, mNamespace))
        , mEnqueueTrace(pluginCallTrace(mDescription, "runtime", "enqueue", ""))
        , mEnqueueHostTrace(pluginCallTrace(mDescription, "runtime", "enqueueHost", ""))
    {
    }

    //! The kVERBOSE lines of an enqueue (and a host enqueue) without details, made once rather than at every run.
    std::string const& enqueueTrace() const
    {
        return mEnqueueTrace;
    }
    std::string const& enqueueHostTrace() const
    {
        return mEnqueueHostTrace;
    }

private:
    PluginFamily mFamily;
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    std::string mDescription;
    std::string mEnqueueTrace;
    std::string mEnqueueHostTrace;
};

//! Takes ownership of plugin. nullptr with error if its identity cannot be read.
std::unique_ptr<PluginAdapter> adaptPluginV2(nvinfer1::IPluginV2* plugin, std::string& error);
std::unique_ptr<PluginAdapter> adaptPluginV3(nvinfer1::IPluginV3* plugin, std::string& error);

//! Recreates a plugin from a plan's payload through the plugin registry. On a
//! missing creator, error names the plugin, the library the plan says it came
//! from, and the closest registered creators.
std::unique_ptr<PluginAdapter> recreatePlugin(
    PluginPayload const& payload, std::string const& layerName, std::string const& library, std::string& error);

} // namespace kiln::plugin
