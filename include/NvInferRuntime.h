// Kiln: dynamic-shape plugins (IPluginV2DynamicExt), the V3 capability interfaces,
// shape expressions, and the registry entry points.
#ifndef NV_INFER_RUNTIME_H
#define NV_INFER_RUNTIME_H

#include "NvInferRuntimeCommon.h"

namespace nvinfer1
{

//! Which runtime an engine is built for. Kiln builds and runs kSTANDARD engines only; the safety and DLA-standalone
//! flows are refused by IBuilderConfig::setEngineCapability.
enum class EngineCapability : int32_t
{
    kSTANDARD = 0,
    kSAFETY = 1,
    kDLA_STANDALONE = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<EngineCapability>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Operations of IExprBuilder::operation.
enum class DimensionOperation : int32_t
{
    kSUM = 0,
    kPROD = 1,
    kMAX = 2,
    kMIN = 3,
    kSUB = 4,   //!< first - second
    kEQUAL = 5, //!< 1 if equal, else 0
    kLESS = 6,  //!< 1 if first < second, else 0
    kFLOOR_DIV = 7,
    kCEIL_DIV = 8,
};

template <>
constexpr inline int32_t EnumMax<DimensionOperation>() noexcept
{
    return 9;
}

enum class TensorLocation : int32_t
{
    kDEVICE = 0,
    kHOST = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorLocation>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! A dimension as a symbolic expression over the network's input dimensions.
//! Kiln implements it (unlike TensorRT, Kiln also lets tests build them: see
//! kiln/ShapeExprTesting.h). Valid until the shape callback that received it returns.
class IDimensionExpr : public INoCopy
{
public:
    //! True if the value is known now (a build-time constant).
    virtual bool isConstant() const noexcept = 0;
    //! The value if isConstant(), else the smallest int64_t.
    virtual int64_t getConstantValue() const noexcept = 0;
    //! True if this expression stands for a size tensor's value (IExprBuilder::declareSizeTensor).
    virtual bool isSizeTensor() const noexcept = 0;

protected:
    IDimensionExpr() = default;
    ~IDimensionExpr() noexcept override = default;
};

//! Builds dimension expressions for getOutputDimensions / getOutputShapes.
class IExprBuilder : public INoCopy
{
public:
    virtual IDimensionExpr const* constant(int64_t value) noexcept = 0;
    //! nullptr for an invalid operation.
    virtual IDimensionExpr const* operation(
        DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept = 0;
    //! Declares output outputIndex a size tensor with the given optimum and upper bound.
    virtual IDimensionExpr const* declareSizeTensor(
        int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
        = 0;

protected:
    IExprBuilder() = default;
    ~IExprBuilder() noexcept override = default;
};

//! A shape as expressions. Plugins copy it and assign its entries.
class DimsExprs
{
public:
    int32_t nbDims;
    IDimensionExpr const* d[Dims::MAX_DIMS];
};

//! A tensor while building: the chosen type and format, and the profile's bounds.
struct DynamicPluginTensorDesc
{
    PluginTensorDesc desc; //!< dims hold -1 for dimensions known only at run time
    Dims min;
    Dims max;
    Dims opt;
};

class IPluginV2DynamicExt : public nvinfer1::IPluginV2Ext
{
public:
    IPluginV2DynamicExt* clone() const override = 0;

    virtual DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder)
        = 0;

    static constexpr int32_t kFORMAT_COMBINATION_LIMIT = 100;

    //! Decide for inOut[pos] using only inOut[0..pos]. Not const (unlike IPluginV2IOExt's).
    virtual bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs)
        = 0;

    virtual void configurePlugin(
        DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs)
        = 0;

    virtual size_t getWorkspaceSize(
        PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs, int32_t nbOutputs) const = 0;

    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
        = 0;

protected:
    int32_t getTensorRTVersion() const override
    {
        return (static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT) << 24 | (NV_TENSORRT_VERSION & 0xFFFFFF));
    }

    IPluginV2DynamicExt() = default;
    virtual ~IPluginV2DynamicExt() noexcept { }
    IPluginV2DynamicExt(IPluginV2DynamicExt const&) = default;
    IPluginV2DynamicExt(IPluginV2DynamicExt&&) = default;
    IPluginV2DynamicExt& operator=(IPluginV2DynamicExt const&) & = default;
    IPluginV2DynamicExt& operator=(IPluginV2DynamicExt&&) & = default;

protected:
    // The static-shape methods, replaced by the overloads above: final so that plugins
    // need not (and cannot) implement them, protected (as in TensorRT 7) so that the
    // `using IPluginV2DynamicExt::enqueue;` lines of plugins of that era compile.
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat, int32_t) final
    {
    }
    bool supportsFormat(DataType, PluginFormat) const final
    {
        return false;
    }
    Dims getOutputDimensions(int32_t, Dims const*, int32_t) final
    {
        return Dims{-1, {}};
    }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const final
    {
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t) const final
    {
        return true;
    }
    size_t getWorkspaceSize(int32_t) const final
    {
        return 0;
    }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) final
    {
        return 1;
    }
    int32_t enqueue(int32_t, void const* const*, void**, void*, cudaStream_t) final
    {
        return 1;
    }
};

namespace v_1_0
{
//! A source of bytes the application implements, from which IRuntime::deserializeCudaEngine reads a plan. Kiln
//! reads until read returns fewer bytes than asked for. read is declared without noexcept (as TensorRT declares it).
//! Deprecated in TensorRT 10.7: IStreamReaderV2.
class IStreamReader : public IVersionedInterface
{
public:
    ~IStreamReader() override = default;
    IStreamReader() = default;
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IStreamReader", 1, 0};
    }
    //! Copies up to nbBytes into destination; returns how many it copied (negative: an error).
    virtual int64_t read(void* destination, int64_t nbBytes) = 0;

protected:
    IStreamReader(IStreamReader const&) = default;
    IStreamReader(IStreamReader&&) = default;
    IStreamReader& operator=(IStreamReader const&) & = default;
    IStreamReader& operator=(IStreamReader&&) & = default;
};

//! A sink of bytes the application implements, to which IBuilder::buildSerializedNetworkToStream writes a plan.
class IStreamWriter : public IVersionedInterface
{
public:
    ~IStreamWriter() override = default;
    IStreamWriter() = default;
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IStreamWriter", 1, 0};
    }
    //! Writes nbBytes of data; returns how many it wrote. Fewer than nbBytes (or negative) makes Kiln stop and fail.
    virtual int64_t write(void const* data, int64_t nbBytes) = 0;

protected:
    IStreamWriter(IStreamWriter const&) = default;
    IStreamWriter(IStreamWriter&&) = default;
    IStreamWriter& operator=(IStreamWriter const&) & = default;
    IStreamWriter& operator=(IStreamWriter&&) & = default;
};
} // namespace v_1_0

using IStreamReader = v_1_0::IStreamReader;
using IStreamWriter = v_1_0::IStreamWriter;

//! Where IStreamReaderV2::seek counts its offset from.
enum class SeekPosition : int32_t
{
    kSET = 0, //!< the start of the stream
    kCUR = 1, //!< the current position
    kEND = 2, //!< the end of the stream
};

namespace v_1_0
{
//! A seekable source of bytes with stream-ordered reads. Kiln reads the plan into host memory (on both backends),
//! from the start, until read returns 0. TensorRT declares read and seek noexcept; Kiln leaves noexcept off the
//! methods applications override, so overrides with and without it compile.
class IStreamReaderV2 : public IVersionedInterface
{
public:
    ~IStreamReaderV2() override = default;
    IStreamReaderV2() = default;
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IStreamReaderV2", 1, 0};
    }
    //! Copies up to nbBytes into destination once the work queued on stream is done; returns how many it copied
    //! (0 at the end of the stream, negative: an error).
    virtual int64_t read(void* destination, int64_t nbBytes, cudaStream_t stream) = 0;
    //! Moves the read position to offset counted from where; false if it cannot.
    virtual bool seek(int64_t offset, SeekPosition where) = 0;

protected:
    IStreamReaderV2(IStreamReaderV2 const&) = default;
    IStreamReaderV2(IStreamReaderV2&&) = default;
    IStreamReaderV2& operator=(IStreamReaderV2 const&) & = default;
    IStreamReaderV2& operator=(IStreamReaderV2&&) & = default;
};
} // namespace v_1_0

using IStreamReaderV2 = v_1_0::IStreamReaderV2;

//! What a V3 plugin gets from the execution context it is attached to. Kiln implements it.
class IPluginResourceContext
{
public:
    virtual IGpuAllocator* getGpuAllocator() const noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual ~IPluginResourceContext() noexcept = default;

protected:
    IPluginResourceContext() = default;
    IPluginResourceContext(IPluginResourceContext const&) = default;
    IPluginResourceContext(IPluginResourceContext&&) = default;
    IPluginResourceContext& operator=(IPluginResourceContext const&) & = default;
    IPluginResourceContext& operator=(IPluginResourceContext&&) & = default;
};

namespace v_1_0
{
class IPluginV3OneCore : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_CORE", 1, 0};
    }
    //! Must match the creator's name, version and namespace.
    virtual AsciiChar const* getPluginName() const = 0;
    virtual AsciiChar const* getPluginVersion() const = 0;
    virtual AsciiChar const* getPluginNamespace() const = 0;
};

class IPluginV3OneBuild : public IPluginCapability
{
public:
    static constexpr int32_t kDEFAULT_FORMAT_COMBINATION_LIMIT = 100;

    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 1, 0};
    }

    //! 0 on success; anything else fails the build.
    virtual int32_t configurePlugin(
        DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs)
        = 0;
    virtual int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, const DataType* inputTypes, int32_t nbInputs) const = 0;
    //! shapeInputs hold the VALUES of the shape-tensor inputs, as expressions.
    virtual int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder)
        = 0;
    virtual bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs)
        = 0;
    virtual int32_t getNbOutputs() const = 0;
    virtual size_t getWorkspaceSize(DynamicPluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const
    {
        return 0;
    }
    virtual int32_t getValidTactics(int32_t* /*tactics*/, int32_t /*nbTactics*/)
    {
        return 0;
    }
    virtual int32_t getNbTactics()
    {
        return 0;
    }
    virtual char const* getTimingCacheID()
    {
        return nullptr;
    }
    virtual int32_t getFormatCombinationLimit()
    {
        return kDEFAULT_FORMAT_COMBINATION_LIMIT;
    }
    virtual char const* getMetadataString()
    {
        return nullptr;
    }
};

class IPluginV3OneRuntime : public IPluginCapability
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_RUNTIME", 1, 0};
    }
    virtual int32_t setTactic(int32_t /*tactic*/)
    {
        return 0;
    }
    virtual int32_t onShapeChange(
        PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs)
        = 0;
    virtual int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
        = 0;
    //! Must return a new clone of the whole plugin, attached to the given context.
    virtual IPluginV3* attachToContext(IPluginResourceContext* context) = 0;
    virtual PluginFieldCollection const* getFieldsToSerialize() = 0;
};
} // namespace v_1_0

namespace v_2_0
{
class IPluginV3OneBuild : public v_1_0::IPluginV3OneBuild
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN_V3ONE_BUILD", 2, 0};
    }
    //! The input whose memory output outputIndex may share, or -1.
    virtual int32_t getAliasedInput(int32_t /*outputIndex*/)
    {
        return -1;
    }
};
} // namespace v_2_0

using IPluginV3OneCore = v_1_0::IPluginV3OneCore;
using IPluginV3OneBuild = v_1_0::IPluginV3OneBuild;
using IPluginV3OneBuildV2 = v_2_0::IPluginV3OneBuild;
using IPluginV3OneRuntime = v_1_0::IPluginV3OneRuntime;

namespace v_1_0
{
//! Creates IPluginV3 plugins: from fields while building (kBUILD), and from the
//! fields of getFieldsToSerialize when a plan is loaded (kRUNTIME).
class IPluginCreatorV3One : public IPluginCreatorInterface
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN CREATOR_V3ONE", 1, 0};
    }
    virtual IPluginV3* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) = 0;
    virtual PluginFieldCollection const* getFieldNames() = 0;
    virtual AsciiChar const* getPluginName() const = 0;
    virtual AsciiChar const* getPluginVersion() const = 0;
    virtual AsciiChar const* getPluginNamespace() const = 0;

    IPluginCreatorV3One() = default;
    virtual ~IPluginCreatorV3One() = default;

protected:
    IPluginCreatorV3One(IPluginCreatorV3One const&) = default;
    IPluginCreatorV3One(IPluginCreatorV3One&&) = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One const&) & = default;
    IPluginCreatorV3One& operator=(IPluginCreatorV3One&&) & = default;
};
} // namespace v_1_0

using IPluginCreatorV3One = v_1_0::IPluginCreatorV3One;

//! Given by Kiln to a plugin library's setLoggerFinder, so the library can log
//! through the application's logger.
class ILoggerFinder
{
public:
    virtual ILogger* findLogger() = 0;

protected:
    virtual ~ILoggerFinder() = default;
};

namespace v_1_0
{
//! The application's memory for an output tensor, asked for while a context runs (IExecutionContext::
//! setOutputAllocator). An output whose shape is data-dependent must have one: its size is known only once the
//! layer producing it has run. Kiln calls reallocateOutputAsync with the exact size of the output once the size is
//! known (before the run for other outputs), then notifyShape with its shape, both before enqueueV3 returns.
//! The methods an application overrides carry no noexcept (TensorRT declares reallocateOutput and notifyShape
//! noexcept), so overrides with and without it compile; an exception thrown from one fails enqueueV3.
class IOutputAllocator : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IOutputAllocator", 1, 0};
    }
    //! Deprecated in TensorRT 10: implement reallocateOutputAsync.
    virtual void* reallocateOutput(
        char const* /*tensorName*/, void* /*currentMemory*/, uint64_t /*size*/, uint64_t /*alignment*/)
    {
        return nullptr;
    }
    //! Memory of at least `size` bytes, aligned to `alignment`, for output `tensorName` (device memory on the CUDA
    //! backend, host memory on Kiln's CPU backend), usable by work queued on `stream`; nullptr if it cannot be had.
    //! currentMemory is what the output had before (the address set with setTensorAddress, or the last one returned
    //! here), which may be returned again when it is large enough.
    virtual void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t /*stream*/)
    {
        return reallocateOutput(tensorName, currentMemory, size, alignment);
    }
    //! The output's shape for the current run.
    virtual void notifyShape(char const* tensorName, Dims const& dims) = 0;
};
} // namespace v_1_0

using IOutputAllocator = v_1_0::IOutputAllocator;

} // namespace nvinfer1

//! The application-wide plugin registry.
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getPluginRegistry() noexcept;
//! The logger that Kiln's free functions (the registry among them) report through.
extern "C" TENSORRTAPI nvinfer1::ILogger* getLogger() noexcept;

extern "C" TENSORRTAPI int32_t getInferLibMajorVersion() noexcept;
extern "C" TENSORRTAPI int32_t getInferLibMinorVersion() noexcept;
extern "C" TENSORRTAPI int32_t getInferLibPatchVersion() noexcept;
extern "C" TENSORRTAPI int32_t getInferLibBuildVersion() noexcept;

namespace nvinfer1
{
//! Registers one creator of type T, under namespace "", when a static object is constructed.
template <typename T>
class PluginRegistrar
{
public:
    PluginRegistrar()
    {
        getPluginRegistry()->registerCreator(instance, "");
    }

private:
    T instance{};
};
} // namespace nvinfer1

#define REGISTER_TENSORRT_PLUGIN(name)                                                                                 \
    static nvinfer1::PluginRegistrar<name> pluginRegistrar##name { }

#include "NvInferRuntimeEngine.h"

#endif // NV_INFER_RUNTIME_H
