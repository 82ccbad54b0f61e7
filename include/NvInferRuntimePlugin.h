// Kiln: the IPluginV2 family (IPluginV2, IPluginV2Ext, IPluginV2IOExt) and IPluginCreator.
//
// Declaration order follows TensorRT's, since it is the order a reader expects.
// Kiln keeps the plain IPluginV2 interface working in explicit-batch networks,
// because the seed documents use it (TensorRT 10 rejects it).
#ifndef NV_INFER_RUNTIME_PLUGIN_H
#define NV_INFER_RUNTIME_PLUGIN_H

#include "NvInferPluginBase.h"

namespace nvinfer1
{

//! What Kiln tells a plugin about one of its inputs or outputs.
struct PluginTensorDesc
{
    Dims dims;
    DataType type;
    TensorFormat format;
    float scale; //!< INT8 only; -1 when not valid
};

static constexpr int32_t kPLUGIN_VERSION_PYTHON_BIT = 0x40;

//! Goes into the upper byte of IPluginV2::getTensorRTVersion() to tell the plugin families apart.
enum class PluginVersion : uint8_t
{
    kV2 = 0,
    kV2_EXT = 1,
    kV2_IOEXT = 2,
    kV2_DYNAMICEXT = 3,
    kV2_DYNAMICEXT_PYTHON = kPLUGIN_VERSION_PYTHON_BIT | 3,
};

enum class PluginCreatorVersion : int32_t
{
    kV1 = 0,
    kV1_PYTHON = kPLUGIN_VERSION_PYTHON_BIT,
};

//! Returned by the default IPluginV2::enqueue of the TensorRT 7 form, so Kiln can
//! tell "the plugin implements neither enqueue form" from an ordinary failure.
static constexpr int32_t kKILN_ENQUEUE_NOT_IMPLEMENTED = -0x4B494C4E;

class IPluginV2
{
public:
    virtual int32_t getTensorRTVersion() const
    {
        return NV_TENSORRT_VERSION;
    }
    virtual AsciiChar const* getPluginType() const = 0;
    virtual AsciiChar const* getPluginVersion() const = 0;
    virtual int32_t getNbOutputs() const = 0;
    //! Output shape WITHOUT the batch dimension, even in explicit-batch networks.
    virtual Dims getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) = 0;
    virtual bool supportsFormat(DataType type, PluginFormat format) const = 0;
    virtual void configureWithFormat(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType type, PluginFormat format, int32_t maxBatchSize)
        = 0;
    virtual int32_t initialize() = 0;
    virtual void terminate() = 0;
    virtual size_t getWorkspaceSize(int32_t maxBatchSize) const = 0;

    //! The enqueue that Kiln calls (TensorRT 8 and later: outputs are void* const*).
    //! Plugins written for TensorRT 7 override the void** form below instead. Each
    //! form's default calls the other, so a caller of either form reaches whichever
    //! one the plugin overrides; a plugin that overrides neither gets
    //! kKILN_ENQUEUE_NOT_IMPLEMENTED instead of endless recursion.
    virtual int32_t enqueue(
        int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
    {
        EnqueueForwarding forwarding(this);
        return forwarding.looped() ? kKILN_ENQUEUE_NOT_IMPLEMENTED
                                   : enqueue(batchSize, inputs, const_cast<void**>(outputs), workspace, stream);
    }
    //! TensorRT 7's enqueue (outputs were void**). See above.
    virtual int32_t enqueue(
        int32_t batchSize, void const* const* inputs, void** outputs, void* workspace, cudaStream_t stream)
    {
        EnqueueForwarding forwarding(this);
        return forwarding.looped() ? kKILN_ENQUEUE_NOT_IMPLEMENTED
                                   : enqueue(batchSize, inputs, static_cast<void* const*>(outputs), workspace, stream);
    }

    virtual size_t getSerializationSize() const = 0;
    virtual void serialize(void* buffer) const = 0;
    virtual void destroy() = 0;
    virtual IPluginV2* clone() const = 0;
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) = 0;
    virtual AsciiChar const* getPluginNamespace() const = 0;

    IPluginV2() = default;
    virtual ~IPluginV2() noexcept = default;

protected:
    IPluginV2(IPluginV2 const&) = default;
    IPluginV2(IPluginV2&&) = default;
    IPluginV2& operator=(IPluginV2 const&) & = default;
    IPluginV2& operator=(IPluginV2&&) & = default;

private:
    //! Marks, for this thread, the plugin whose default enqueue is forwarding to the
    //! other form; meeting the same plugin again means neither form is overridden.
    class EnqueueForwarding
    {
    public:
        explicit EnqueueForwarding(IPluginV2 const* plugin)
            : mPrevious(current())
            , mLooped(mPrevious == plugin)
        {
            current() = plugin;
        }
        ~EnqueueForwarding()
        {
            current() = mPrevious;
        }
        EnqueueForwarding(EnqueueForwarding const&) = delete;
        EnqueueForwarding& operator=(EnqueueForwarding const&) = delete;
        bool looped() const
        {
            return mLooped;
        }

    private:
        static IPluginV2 const*& current()
        {
            static thread_local IPluginV2 const* plugin = nullptr;
            return plugin;
        }
        IPluginV2 const* mPrevious;
        bool mLooped;
    };
};

class IPluginV2Ext : public IPluginV2
{
public:
    virtual nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const = 0;

    // TensorRT 10 deprecated these two and TensorRT 11 removed them; Kiln gives them
    // defaults so plugins written for any of those versions compile.
    virtual bool isOutputBroadcastAcrossBatch(
        int32_t /*outputIndex*/, bool const* /*inputIsBroadcasted*/, int32_t /*nbInputs*/) const
    {
        return false;
    }
    virtual bool canBroadcastInputAcrossBatch(int32_t /*inputIndex*/) const
    {
        return false;
    }

    virtual void configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims, int32_t nbOutputs,
        DataType const* inputTypes, DataType const* outputTypes, bool const* inputIsBroadcast,
        bool const* outputIsBroadcast, PluginFormat floatFormat, int32_t maxBatchSize)
        = 0;

    IPluginV2Ext() = default;
    ~IPluginV2Ext() override = default;

    //! cudnn and cublas are handles bound to the execution context (nullptr on the CPU backend).
    virtual void attachToContext(cudnnContext* /*cudnn*/, cublasContext* /*cublas*/, IGpuAllocator* /*allocator*/) { }
    virtual void detachFromContext() { }

    IPluginV2Ext* clone() const override = 0;

protected:
    IPluginV2Ext(IPluginV2Ext const&) = default;
    IPluginV2Ext(IPluginV2Ext&&) = default;
    IPluginV2Ext& operator=(IPluginV2Ext const&) & = default;
    IPluginV2Ext& operator=(IPluginV2Ext&&) & = default;

    int32_t getTensorRTVersion() const override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_EXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

    void configureWithFormat(Dims const* /*inputDims*/, int32_t /*nbInputs*/, Dims const* /*outputDims*/,
        int32_t /*nbOutputs*/, DataType /*type*/, PluginFormat /*format*/, int32_t /*maxBatchSize*/) override
    {
    }
};

class IPluginV2IOExt : public IPluginV2Ext
{
public:
    virtual void configurePlugin(
        PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* out, int32_t nbOutput)
        = 0;

    //! Decide for inOut[pos] using only inOut[0..pos]; later entries are not valid yet.
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const = 0;

    IPluginV2IOExt() = default;
    ~IPluginV2IOExt() override = default;

protected:
    IPluginV2IOExt(IPluginV2IOExt const&) = default;
    IPluginV2IOExt(IPluginV2IOExt&&) = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt const&) & = default;
    IPluginV2IOExt& operator=(IPluginV2IOExt&&) & = default;

    int32_t getTensorRTVersion() const override
    {
        return static_cast<int32_t>((static_cast<uint32_t>(PluginVersion::kV2_IOEXT) << 24U)
            | (static_cast<uint32_t>(NV_TENSORRT_VERSION) & 0xFFFFFFU));
    }

protected:
    // Replaced by the overloads above: final so that plugins need not implement them,
    // protected (as in TensorRT 7) so that `using IPluginV2IOExt::configurePlugin;` compiles.
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) final
    {
    }
    bool supportsFormat(DataType, PluginFormat) const final
    {
        return false;
    }
};

namespace v_1_0
{
//! Creates IPluginV2-family plugins, from fields while building and from bytes when a plan is loaded.
class IPluginCreator : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V1", 1, 0};
    }

    //! Removed from TensorRT 10's IPluginCreator; Kiln keeps it so that creators written
    //! for TensorRT 8 that override it still compile. Kiln does not rely on its value.
    virtual int32_t getTensorRTVersion() const
    {
        return NV_TENSORRT_VERSION;
    }

    virtual AsciiChar const* getPluginName() const = 0;
    virtual AsciiChar const* getPluginVersion() const = 0;
    virtual PluginFieldCollection const* getFieldNames() = 0;
    virtual IPluginV2* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) = 0;
    virtual IPluginV2* deserializePlugin(AsciiChar const* name, void const* serialData, size_t serialLength) = 0;
    virtual void setPluginNamespace(AsciiChar const* pluginNamespace) = 0;
    virtual AsciiChar const* getPluginNamespace() const = 0;

    IPluginCreator() = default;
    ~IPluginCreator() override = default;

protected:
    IPluginCreator(IPluginCreator const&) = default;
    IPluginCreator(IPluginCreator&&) = default;
    IPluginCreator& operator=(IPluginCreator const&) & = default;
    IPluginCreator& operator=(IPluginCreator&&) & = default;
};
} // namespace v_1_0

using IPluginCreator = v_1_0::IPluginCreator;

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_PLUGIN_H
