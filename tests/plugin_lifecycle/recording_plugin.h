// A test plugin (IPluginV2DynamicExt) that records every call Kiln makes into it
// and doubles its input. Options make it fail, drop host execution or accept only
// some types, to test how Kiln reports plugins that misbehave.
#pragma once

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <mutex>
#include <string>
#include <vector>

namespace kiln::test
{

struct RecorderOptions
{
    enum class Failure : int32_t
    {
        kNONE,
        kENQUEUE_RETURNS_ERROR,
        kENQUEUE_THROWS,
    };
    Failure failure{Failure::kNONE};
    //! Types the plugin accepts for its input and output (all must match).
    std::vector<nvinfer1::DataType> types{nvinfer1::DataType::kFLOAT};
};

//! Every call, in order, as "method"; shared by all plugin objects.
class CallLog
{
public:
    static void record(std::string call);
    static std::vector<std::string> take();

private:
    static std::mutex sMutex;
    static std::vector<std::string> sCalls;
};

class RecordingPlugin : public nvinfer1::IPluginV2DynamicExt
{
public:
    explicit RecordingPlugin(RecorderOptions options)
        : mOptions(std::move(options))
    {
    }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t index, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& builder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) const noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override;
    void attachToContext(cudnnContext*, cublasContext*, nvinfer1::IGpuAllocator*) noexcept override;
    void detachFromContext() noexcept override;
    char const* getPluginType() const noexcept override
    {
        return "Recorder";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    int32_t getNbOutputs() const noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override;
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

protected:
    RecorderOptions mOptions;
    std::string mNamespace;
};

//! The same plugin with host execution: it can run on the CPU backend.
class HostRecordingPlugin final : public RecordingPlugin, public kiln::IHostPlugin
{
public:
    using RecordingPlugin::RecordingPlugin;
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override;
};

class RecordingCreator final : public nvinfer1::IPluginCreator
{
public:
    char const* getPluginName() const noexcept override
    {
        return "Recorder";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t size) noexcept override;
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    nvinfer1::PluginFieldCollection mFields{};
    std::string mNamespace;
};

} // namespace kiln::test
