// A test plugin (IPluginV3) that copies its FP32 input to its output and remembers what its
// execution context lent it: the IPluginResourceContext's allocator when it attaches, and
// its error recorder and the workspace address when it runs. It runs on the CPU backend
// (kiln::IHostPlugin); on the CUDA backend it can be attached, not run.
#pragma once

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <vector>

namespace kiln::test
{

//! The probe's name and version, which its plugin and its creator must report alike.
inline constexpr char const* kResourceProbeName = "KilnResourceProbe";
inline constexpr char const* kResourceProbeVersion = "1";

//! What the probes saw, in order; tests clear it first. One test at a time uses it.
struct ResourceProbeLog
{
    static inline std::vector<nvinfer1::IGpuAllocator*> allocatorsAtAttach;
    static inline std::vector<nvinfer1::IErrorRecorder*> recordersAtRun;
    static inline std::vector<void*> workspacesAtRun;

    static void clear()
    {
        allocatorsAtAttach.clear();
        recordersAtRun.clear();
        workspacesAtRun.clear();
    }
};

class ResourceProbePlugin final : public nvinfer1::IPluginV3,
                                  public nvinfer1::IPluginV3OneCore,
                                  public nvinfer1::IPluginV3OneBuild,
                                  public nvinfer1::IPluginV3OneRuntime,
                                  public kiln::IHostPlugin
{
public:
    static constexpr size_t kWorkspaceBytes = 96;

    // IPluginV3
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
        auto* copy = new ResourceProbePlugin();
        copy->mContext = mContext;
        return copy;
    }

    // IPluginV3OneCore
    char const* getPluginName() const noexcept override
    {
        return kResourceProbeName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kResourceProbeVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(
        nvinfer1::DataType* outputTypes, int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const*, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder&) noexcept override
    {
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == nvinfer1::DataType::kFLOAT
            && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) const noexcept override
    {
        return kWorkspaceBytes;
    }

    // IPluginV3OneRuntime
    int32_t onShapeChange(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*, void const* const*,
        void* const*, void*, cudaStream_t) noexcept override
    {
        return 1; // the probe has no device kernel
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override
    {
        auto* attached = static_cast<ResourceProbePlugin*>(clone());
        attached->mContext = context;
        ResourceProbeLog::allocatorsAtAttach.push_back(context != nullptr ? context->getGpuAllocator() : nullptr);
        return attached;
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mNoFields;
    }

    // kiln::IHostPlugin
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        ResourceProbeLog::recordersAtRun.push_back(mContext != nullptr ? mContext->getErrorRecorder() : nullptr);
        ResourceProbeLog::workspacesAtRun.push_back(workspace);
        // The workspace must be writable memory of the size asked for.
        std::memset(workspace, 0x5A, kWorkspaceBytes);
        int64_t elements = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            elements *= inputDesc[0].dims.d[i];
        }
        std::memcpy(outputs[0], inputs[0], static_cast<size_t>(elements) * sizeof(float));
        return 0;
    }

private:
    nvinfer1::IPluginResourceContext* mContext{nullptr};
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

class ResourceProbeCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return new ResourceProbePlugin();
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mNoFields;
    }
    char const* getPluginName() const noexcept override
    {
        return kResourceProbeName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kResourceProbeVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    //! Registers one creator for the process, so that plans with the probe can be loaded.
    static void registerOnce()
    {
        static ResourceProbeCreator creator;
        static bool const registered = getPluginRegistry()->registerCreator(creator, "");
        (void) registered;
    }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

} // namespace kiln::test
