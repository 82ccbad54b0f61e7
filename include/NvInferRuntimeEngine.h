// Kiln: runtime, engine and execution context (included by NvInferRuntime.h).
#ifndef NV_INFER_RUNTIME_ENGINE_H
#define NV_INFER_RUNTIME_ENGINE_H

#include "NvInferRuntime.h"

namespace nvinfer1
{

class ICudaEngine;
class IExecutionContext;
class IEngineInspector;
class IRuntimeConfig;
//! Defined with IBuilderConfig (NvInfer.h), as TensorRT does; ICudaEngine only names it.
enum class HardwareCompatibilityLevel : int32_t;

//! How IEngineInspector writes what it reports.
enum class LayerInformationFormat : int32_t
{
    kONELINE = 0, //!< one line per layer
    kJSON = 1,    //!< a JSON object per layer; the engine as {"Layers": [...], "Bindings": [...]}
};

//! Number of enumerators of LayerInformationFormat.
template <>
constexpr inline int32_t EnumMax<LayerInformationFormat>() noexcept
{
    return 2;
}

//! Memory that Kiln allocated and the caller owns (delete it), e.g. a serialized plan.
class IHostMemory : public INoCopy
{
public:
    ~IHostMemory() noexcept override = default;
    virtual void* data() const noexcept = 0;
    virtual std::size_t size() const noexcept = 0;
    virtual DataType type() const noexcept = 0;
};

enum class OptProfileSelector : int32_t
{
    kMIN = 0,
    kOPT = 1,
    kMAX = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<OptProfileSelector>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! What a layer uses a set of weights for (IRefitter).
enum class WeightsRole : int32_t
{
    kKERNEL = 0,   //!< convolution or deconvolution kernel
    kBIAS = 1,     //!< convolution or deconvolution bias
    kSHIFT = 2,    //!< IScaleLayer shift
    kSCALE = 3,    //!< IScaleLayer scale
    kCONSTANT = 4, //!< IConstantLayer weights
    kANY = 5,      //!< any other role
};

namespace impl
{
template <>
struct EnumMaxImpl<WeightsRole>
{
    static constexpr int32_t kVALUE = 6;
};
} // namespace impl

//! Where a layer runs. Kiln has no DLA: every layer runs on the GPU (or, on Kiln's CPU backend, the host).
enum class DeviceType : int32_t
{
    kGPU = 0,
    kDLA = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<DeviceType>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Whether a runtime may create temporary files (TensorRT's lean runtimes need them; Kiln never creates any).
enum class TempfileControlFlag : int32_t
{
    kALLOW_IN_MEMORY_FILES = 0,
    kALLOW_TEMPORARY_FILES = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<TempfileControlFlag>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

using TempfileControlFlags = uint32_t;

//! Min/opt/max shapes of the network's inputs whose dimensions are -1 (declared here, in NvInferRuntime.h's part,
//! as TensorRT does, so that runtime-only code can name it).
class IOptimizationProfile : public INoCopy
{
public:
    virtual bool setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept = 0;
    virtual Dims getDimensions(char const* inputName, OptProfileSelector select) const noexcept = 0;
    //! Values of an input shape tensor (TensorRT 10's int32_t form).
    virtual bool setShapeValues(
        char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept = 0;
    virtual int32_t getNbShapeValues(char const* inputName) const noexcept = 0;
    virtual int32_t const* getShapeValues(char const* inputName, OptProfileSelector select) const noexcept = 0;
    //! A hint for the extra weight memory of profiles after the first, between 0 and 1; false outside. Kiln keeps
    //! one copy of the weights for all profiles, so the value is only stored.
    virtual bool setExtraMemoryTarget(float target) noexcept = 0;
    virtual float getExtraMemoryTarget() const noexcept = 0;
    virtual bool isValid() const noexcept = 0;
    //! setShapeValues with int64 values (TensorRT 10.11). Kiln's plans bound shape values in 32 bits: a value
    //! outside int32_t's range is refused.
    virtual bool setShapeValuesV2(
        char const* inputName, OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept = 0;
    //! The values setShapeValuesV2 gave; nullptr where it was not called (or setShapeValues replaced them).
    virtual int64_t const* getShapeValuesV2(char const* inputName, OptProfileSelector select) const noexcept = 0;

protected:
    ~IOptimizationProfile() noexcept override = default;
};

//! Sources of kernels the builder may time. Kiln accepts and stores the set; its CUDA backend always times cuDNN
//! and cuBLASLt and has no edge-mask or JIT convolutions.
enum class TacticSource : int32_t
{
    kCUBLAS = 0,    //!< deprecated in TensorRT 10.0
    kCUBLAS_LT = 1, //!< deprecated in TensorRT 9.0
    kCUDNN = 2,     //!< deprecated in TensorRT 10.0
    kEDGE_MASK_CONVOLUTIONS = 3,
    kJIT_CONVOLUTIONS = 4,
};

namespace impl
{
template <>
struct EnumMaxImpl<TacticSource>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

using TacticSources = uint32_t;

//! How much an engine says about its layers. Kiln's inspector always gives the detailed view; the level is stored.
enum class ProfilingVerbosity : int32_t
{
    kLAYER_NAMES_ONLY = 0,
    kNONE = 1,
    kDETAILED = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<ProfilingVerbosity>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

using SerializationFlags = uint32_t;

//! What ICudaEngine::serializeWithConfig leaves out.
enum class SerializationFlag : int32_t
{
    kEXCLUDE_WEIGHTS = 0,      //!< refused by Kiln: it writes no weight-stripped plans yet
    kEXCLUDE_LEAN_RUNTIME = 1, //!< accepted: Kiln's plans never hold a runtime
    kINCLUDE_REFIT = 2,        //!< accepted: a refittable plan always lists its refittable weights
};

namespace impl
{
template <>
struct EnumMaxImpl<SerializationFlag>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Options of ICudaEngine::serializeWithConfig (made by ICudaEngine::createSerializationConfig; delete it).
class ISerializationConfig : public INoCopy
{
public:
    ~ISerializationConfig() noexcept override = default;
    virtual bool setFlags(SerializationFlags serializationFlags) noexcept = 0;
    virtual SerializationFlags getFlags() const noexcept = 0;
    virtual bool clearFlag(SerializationFlag serializationFlag) noexcept = 0;
    virtual bool setFlag(SerializationFlag serializationFlag) noexcept = 0;
    virtual bool getFlag(SerializationFlag serializationFlag) const noexcept = 0;
};

//! Where an execution context's device memory (activations and plugin workspaces) comes from.
enum class ExecutionContextAllocationStrategy : int32_t
{
    kSTATIC = 0,            //!< the context allocates, at creation, enough for every profile
    kON_PROFILE_CHANGE = 1, //!< the context allocates for the selected profile (in Kiln: the same as kSTATIC,
                            //!< because a plan keeps one memory layout for all its profiles)
    kUSER_MANAGED = 2,      //!< the application gives the memory: IExecutionContext::setDeviceMemoryV2
};

namespace impl
{
template <>
struct EnumMaxImpl<ExecutionContextAllocationStrategy>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! How ICudaEngine::createExecutionContext(IRuntimeConfig*) makes a context (made by ICudaEngine::
//! createRuntimeConfig; the caller deletes it).
class IRuntimeConfig : public INoCopy
{
public:
    ~IRuntimeConfig() noexcept override = default;
    virtual void setExecutionContextAllocationStrategy(ExecutionContextAllocationStrategy strategy) noexcept = 0;
    virtual ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept = 0;
};

//! Statistics ICudaEngine::getEngineStat reports.
enum class EngineStat : int32_t
{
    kTOTAL_WEIGHTS_SIZE = 0,
    kSTRIPPED_WEIGHTS_SIZE = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<EngineStat>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Loads plans. Delete it after the engines it made.
class IRuntime : public INoCopy
{
public:
    ~IRuntime() noexcept override = default;
    //! Kiln has no DLA: setDLACore with a core other than -1 logs an error; getDLACore is -1, getNbDLACores 0.
    virtual void setDLACore(int32_t dlaCore) noexcept = 0;
    virtual int32_t getDLACore() const noexcept = 0;
    virtual int32_t getNbDLACores() const noexcept = 0;
    //! The allocator for the device memory of the engines deserialized after this call and of their contexts
    //! (nullptr: Kiln's default, which pools through CUDA's stream-ordered allocator). It must outlive them.
    virtual void setGpuAllocator(IGpuAllocator* allocator) noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! nullptr (with the reason logged) for a plan that is truncated, corrupted,
    //! from another format version, or that needs a plugin that is not registered.
    virtual ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept = 0;
    //! The plan read from streamReader until it gives fewer bytes than asked for; nullptr (with the reason logged)
    //! when a read fails or the plan does not load. Deprecated in TensorRT 10.7: the IStreamReaderV2 form.
    virtual ICudaEngine* deserializeCudaEngine(IStreamReader& streamReader) = 0;
    //! The plan read from the start of streamReader (seek to 0, then reads into host memory until one returns 0).
    virtual ICudaEngine* deserializeCudaEngine(IStreamReaderV2& streamReader) = 0;
    virtual ILogger* getLogger() const noexcept = 0;
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
    //! Stored only: Kiln creates no temporary files.
    virtual void setTemporaryDirectory(char const* path) noexcept = 0;
    virtual char const* getTemporaryDirectory() const noexcept = 0;
    virtual void setTempfileControlFlags(TempfileControlFlags flags) noexcept = 0;
    virtual TempfileControlFlags getTempfileControlFlags() const noexcept = 0;
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;
    //! Refused (nullptr, with an error): Kiln has no lean runtimes to load.
    virtual IRuntime* loadRuntime(char const* path) noexcept = 0;
    //! Stored only: Kiln's plans never hold host code.
    virtual void setEngineHostCodeAllowed(bool allowed) noexcept = 0;
    virtual bool getEngineHostCodeAllowed() const noexcept = 0;
};

//! Replaces the weights of an engine built with BuilderFlag::kREFIT (kREFIT_INDIVIDUAL: those markWeightsRefittable
//! named). Kiln's builder combines no refittable weights with others, so none are ever missing: any subset can be
//! refitted. Values are copied (host memory only) and converted to the engine's type when set; refitCudaEngine writes
//! them, and each execution context uploads its copy before its next run. createInferRefitter returns nullptr, with
//! an error, for an engine that is not refittable.
class IRefitter : public INoCopy
{
public:
    ~IRefitter() noexcept override = default;
    virtual bool setWeights(char const* layerName, WeightsRole role, Weights weights) noexcept = 0;
    virtual bool refitCudaEngine() noexcept = 0;
    virtual int32_t getMissing(int32_t size, char const** layerNames, WeightsRole* roles) noexcept = 0;
    virtual int32_t getAll(int32_t size, char const** layerNames, WeightsRole* roles) noexcept = 0;
    //! Deprecated in TensorRT 10.1 (explicit quantization replaces dynamic ranges).
    virtual bool setDynamicRange(char const* tensorName, float min, float max) noexcept = 0;
    virtual float getDynamicRangeMin(char const* tensorName) const noexcept = 0;
    virtual float getDynamicRangeMax(char const* tensorName) const noexcept = 0;
    virtual int32_t getTensorsWithDynamicRange(int32_t size, char const** tensorNames) const noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual bool setNamedWeights(char const* name, Weights weights) noexcept = 0;
    virtual int32_t getMissingWeights(int32_t size, char const** weightsNames) noexcept = 0;
    virtual int32_t getAllWeights(int32_t size, char const** weightsNames) noexcept = 0;
    virtual ILogger* getLogger() const noexcept = 0;
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
    virtual bool setNamedWeights(char const* name, Weights weights, TensorLocation location) noexcept = 0;
    virtual Weights getNamedWeights(char const* weightsName) const noexcept = 0;
    virtual TensorLocation getWeightsLocation(char const* weightsName) const noexcept = 0;
    virtual bool unsetNamedWeights(char const* weightsName) noexcept = 0;
    virtual void setWeightsValidation(bool weightsValidation) noexcept = 0;
    virtual bool getWeightsValidation() const noexcept = 0;
    virtual bool refitCudaEngineAsync(cudaStream_t stream) noexcept = 0;
    virtual Weights getWeightsPrototype(char const* weightsName) const noexcept = 0;
};

//! A built network, shared by its execution contexts; only a refit (IRefitter) changes it, and only its weights. The
//! methods are declared in TensorRT 10.15's order (tests/dialects/check_declaration_order.py).
class ICudaEngine : public INoCopy
{
public:
    ~ICudaEngine() noexcept override = default;
    //! Dims with -1 where the extent is chosen at run time; {-1, {}} for an unknown name.
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;
    virtual DataType getTensorDataType(char const* tensorName) const noexcept = 0;
    virtual int32_t getNbLayers() const noexcept = 0;
    virtual IHostMemory* serialize() const noexcept = 0;
    //! nullptr (with the reason logged) when a plugin cannot attach or the memory cannot be allocated; the engine
    //! stays usable. With kUSER_MANAGED the context owns no activation memory until setDeviceMemoryV2.
    virtual IExecutionContext* createExecutionContext(
        ExecutionContextAllocationStrategy strategy = ExecutionContextAllocationStrategy::kSTATIC) noexcept = 0;
    virtual TensorLocation getTensorLocation(char const* tensorName) const noexcept = 0;
    virtual bool isShapeInferenceIO(char const* tensorName) const noexcept = 0;
    virtual TensorIOMode getTensorIOMode(char const* tensorName) const noexcept = 0;
    //! The input an output must share memory with (TensorRT 10.15, for layers that update an input in place, such
    //! as IKVCacheUpdateLayer): always nullptr, as no Kiln engine has such a layer.
    virtual char const* getAliasedInputTensor(char const* tensorName) const noexcept = 0;
    //! Deprecated in TensorRT 10: createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED).
    IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept
    {
        return createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED);
    }
    //! Deprecated in TensorRT 10.1: getDeviceMemorySizeV2.
    size_t getDeviceMemorySize() const noexcept
    {
        return static_cast<size_t>(getDeviceMemorySizeV2());
    }
    //! Deprecated in TensorRT 10.1: getDeviceMemorySizeForProfileV2 (0 here for a profile that does not exist).
    size_t getDeviceMemorySizeForProfile(int32_t profileIndex) const noexcept
    {
        int64_t const size = getDeviceMemorySizeForProfileV2(profileIndex);
        return size < 0 ? 0 : static_cast<size_t>(size);
    }
    //! The bytes of memory a context needs (what a kUSER_MANAGED context must be given): activations and plugin
    //! workspaces, in device memory on the CUDA backend and in host memory on Kiln's CPU backend.
    virtual int64_t getDeviceMemorySizeV2() const noexcept = 0;
    //! The same for one optimization profile; -1 (with an error reported) for a profile that does not exist.
    virtual int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept = 0;
    //! Whether the engine has weights a refitter may replace (built with kREFIT or kREFIT_INDIVIDUAL).
    virtual bool isRefittable() const noexcept = 0;
    //! For a vectorized format, the bytes of one component and the components of one vector; -1 for kLINEAR (not
    //! vectorized) and for a name that is not an I/O tensor. An I/O tensor keeps one format in every profile of a
    //! Kiln plan, so this and the other per-profile forms answer as their forms without a profile (once the profile
    //! index is checked).
    virtual int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept = 0;
    virtual int32_t getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept = 0;
    virtual int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept = 0;
    virtual int32_t getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept = 0;
    virtual TensorFormat getTensorFormat(char const* tensorName) const noexcept = 0;
    virtual TensorFormat getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept = 0;
    //! A sentence naming the layout and type, e.g. "Row-major linear FP32 format"; "" for an unknown name.
    virtual char const* getTensorFormatDesc(char const* tensorName) const noexcept = 0;
    virtual char const* getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept = 0;
    //! The dimension a vectorized format splits; -1 when it is not vectorized.
    virtual int32_t getTensorVectorizedDim(char const* tensorName) const noexcept = 0;
    virtual int32_t getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;
    virtual Dims getProfileShape(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept = 0;
    //! The values IOptimizationProfile::setShapeValues gave a shape-tensor input; nullptr for other tensors.
    virtual int32_t const* getProfileTensorValues(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept = 0;
    //! kSTANDARD: Kiln builds no other kind.
    virtual EngineCapability getEngineCapability() const noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! Deprecated in TensorRT 10.0: always false.
    virtual bool hasImplicitBatchDimension() const noexcept = 0;
    //! Kiln's plans do not record the builder's tactic sources: TensorRT's default set. The verbosity is kDETAILED,
    //! what Kiln's inspector always gives.
    virtual TacticSources getTacticSources() const noexcept = 0;
    virtual ProfilingVerbosity getProfilingVerbosity() const noexcept = 0;
    //! Describes the engine's layers (delete it before the engine). Kiln always gives the detailed view:
    //! layer types, chosen precisions, tensor types and shapes, and for plugins where their creator came from.
    virtual IEngineInspector* createEngineInspector() const noexcept = 0;
    virtual int32_t getNbIOTensors() const noexcept = 0;
    virtual char const* getIOTensorName(int32_t index) const noexcept = 0;
    virtual HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept = 0;
    //! 0: Kiln runs each context on the one stream it is given.
    virtual int32_t getNbAuxStreams() const noexcept = 0;
    //! A serialization config (no flags set); the caller deletes it.
    virtual ISerializationConfig* createSerializationConfig() noexcept = 0;
    //! The plan, as serialize() gives it, for the flags Kiln can honour; nullptr (with an error) for
    //! kEXCLUDE_WEIGHTS, which needs a refittable engine.
    virtual IHostMemory* serializeWithConfig(ISerializationConfig& config) const noexcept = 0;
    //! Weight streaming (BuilderFlag::kWEIGHT_STREAMING) is not in Kiln: the setters fail with an error, the
    //! budget queries report the failure value -1 and the sizes 0.
    virtual bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept = 0;
    virtual int64_t getWeightStreamingBudget() const noexcept = 0;
    virtual int64_t getMinimumWeightStreamingBudget() const noexcept = 0;
    virtual int64_t getStreamableWeightsSize() const noexcept = 0;
    virtual bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept = 0;
    virtual int64_t getWeightStreamingBudgetV2() const noexcept = 0;
    virtual int64_t getWeightStreamingAutomaticBudget() const noexcept = 0;
    virtual int64_t getWeightStreamingScratchMemorySize() const noexcept = 0;
    //! Whether INetworkDefinition::markDebug marked the tensor.
    virtual bool isDebugTensor(char const* name) const noexcept = 0;

    //! A context made with the strategy of runtimeConfig (nullptr: kSTATIC).
    virtual IExecutionContext* createExecutionContext(IRuntimeConfig* runtimeConfig) noexcept = 0;
    //! A runtime config with TensorRT's defaults; the caller deletes it.
    virtual IRuntimeConfig* createRuntimeConfig() noexcept = 0;
    //! The int64 form of getProfileTensorValues (TensorRT 10.11): nullptr, as getProfileTensorValues.
    virtual int64_t const* getProfileTensorValuesV2(
        char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept = 0;
    //! kTOTAL_WEIGHTS_SIZE: the bytes of the plan's weights; kSTRIPPED_WEIGHTS_SIZE: -1 (Kiln strips no plan).
    virtual int64_t getEngineStat(EngineStat stat) const noexcept = 0;
};

namespace v_1_0
{
//! Receives each layer's execution time from a context it was given to (IExecutionContext::setProfiler).
//! Kiln reports host wall-clock time on the CPU backend, and GPU time (CUDA events) on the CUDA backend.
//! The application implements it: reportLayerTime is declared without noexcept (TensorRT 8+ has it) so that
//! overrides in the TensorRT 7 style (without) compile too; an exception it throws is reported as an error.
class IProfiler
{
public:
    virtual void reportLayerTime(char const* layerName, float ms) = 0;
    virtual ~IProfiler() noexcept = default;
};
} // namespace v_1_0

using IProfiler = v_1_0::IProfiler;

namespace v_1_0
{
//! Receives the values of debug tensors (INetworkDefinition::markDebug) whose debug state a context turned on, once
//! the layer writing each has run: device memory valid in the order of `stream` on the CUDA backend, host memory on
//! Kiln's CPU backend. Returning false, or throwing, fails the enqueue. processDebugTensor is declared without
//! noexcept, as TensorRT declares it.
class IDebugListener : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return {"IDebugListener", 1, 0};
    }
    virtual bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream)
        = 0;
    ~IDebugListener() override = default;
};
} // namespace v_1_0

using IDebugListener = v_1_0::IDebugListener;

//! The state of one inference stream: shapes, tensor addresses, plugin clones,
//! scratch memory. One thread at a time; several contexts run at once. The methods are declared in TensorRT 10.15's
//! order.
class IExecutionContext : public INoCopy
{
public:
    ~IExecutionContext() noexcept override = default;

    //! Stored only: Kiln's executeV2 already reports a failing layer by name.
    virtual void setDebugSync(bool sync) noexcept = 0;
    virtual bool getDebugSync() const noexcept = 0;
    //! Per-layer times of every later run go to `profiler` (nullptr: none); it must outlive its use.
    virtual void setProfiler(IProfiler* profiler) noexcept = 0;
    virtual IProfiler* getProfiler() const noexcept = 0;
    virtual ICudaEngine const& getEngine() const noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    //! Deprecated in TensorRT 10.1: setDeviceMemoryV2, trusting that the memory is large enough.
    virtual void setDeviceMemory(void* memory) noexcept = 0;
    //! Gives a kUSER_MANAGED context its memory: at least ICudaEngine::getDeviceMemorySizeV2() bytes (`size`),
    //! 256-byte aligned, in device memory on the CUDA backend and in host memory on Kiln's CPU backend. The memory
    //! is in use from enqueueV3 until the work it queued is done. An error (and the memory not taken) when it is
    //! too small, misaligned, or the context allocates its own memory.
    virtual void setDeviceMemoryV2(void* memory, int64_t size) noexcept = 0;
    //! Strides in elements of an I/O tensor's current shape (row-major; Kiln's I/O tensors are kLINEAR); {-1, {}}
    //! for an unknown name or a shape not yet known.
    virtual Dims getTensorStrides(char const* tensorName) const noexcept = 0;
    virtual int32_t getOptimizationProfile() const noexcept = 0;
    virtual bool setInputShape(char const* tensorName, Dims const& dims) noexcept = 0;
    //! For outputs, the shape resolved from the current input shapes; -1 for an extent that is data-dependent until
    //! a run has computed it (then the last run's extent, until an input shape or shape value changes).
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;
    virtual bool allInputDimensionsSpecified() const noexcept = 0;
    //! Deprecated in TensorRT 10.0: allInputDimensionsSpecified.
    virtual bool allInputShapesSpecified() const noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! Synchronous execution; bindings[i] is the address of I/O tensor i, in getIOTensorName order.
    virtual bool executeV2(void* const* bindings) noexcept = 0;
    virtual bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept = 0;
    //! True (the default): each run reports its layer times itself. False: only reportToProfiler reports them.
    virtual void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept = 0;
    virtual bool getEnqueueEmitsProfile() const noexcept = 0;
    //! Reports the last run's layer times to the profiler; false if no profiler is set.
    virtual bool reportToProfiler() const noexcept = 0;
    virtual bool setTensorAddress(char const* tensorName, void* data) noexcept = 0;
    virtual void const* getTensorAddress(char const* tensorName) const noexcept = 0;
    //! setTensorAddress for an output; false (with an error) for a name that is not an output.
    virtual bool setOutputTensorAddress(char const* tensorName, void* data) noexcept = 0;
    virtual bool setInputTensorAddress(char const* tensorName, void const* data) noexcept = 0;
    virtual void* getOutputTensorAddress(char const* tensorName) const noexcept = 0;
    //! 0 when every input shape is set; else the number of inputs whose shape is missing, whose names are written
    //! to tensorNames (up to nbMaxNames); -1 for bad arguments.
    virtual int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept = 0;
    //! The bytes of memory the context needs for its current input shapes and profile; 0 (with an error reported)
    //! when they are not all known or do not fit the profile. Kiln's plan keeps every tensor at a fixed place sized
    //! for the profiles' largest shapes, so this is getDeviceMemorySizeV2() for any valid shapes.
    virtual size_t updateDeviceMemorySizeForShapes() noexcept = 0;
    //! Refused for a non-null event (false, with an error): Kiln does not signal input consumption yet.
    virtual bool setInputConsumedEvent(cudaEvent_t event) noexcept = 0;
    virtual cudaEvent_t getInputConsumedEvent() const noexcept = 0;
    //! The allocator that gives output `tensorName` its memory in later runs (nullptr: none; the address set with
    //! setTensorAddress is used). False (with an error) for a name that is not an output.
    virtual bool setOutputAllocator(char const* tensorName, IOutputAllocator* outputAllocator) noexcept = 0;
    virtual IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept = 0;
    //! The most bytes output `tensorName` can take for the current input shapes: its upper bound where its shape is
    //! data-dependent. -1 (with an error) for a name that is not an output or when the input shapes are not all set.
    virtual int64_t getMaxOutputSize(char const* tensorName) const noexcept = 0;
    //! Stored: Kiln plans all temporary memory ahead, so it never asks this allocator.
    virtual bool setTemporaryStorageAllocator(IGpuAllocator* allocator) noexcept = 0;
    virtual IGpuAllocator* getTemporaryStorageAllocator() const noexcept = 0;
    //! Runs the network on stream (the CPU backend accepts a null stream and runs synchronously).
    virtual bool enqueueV3(cudaStream_t stream) noexcept = 0;
    //! Stored only: Kiln sets no persisting L2 cache.
    virtual void setPersistentCacheLimit(size_t size) noexcept = 0;
    virtual size_t getPersistentCacheLimit() const noexcept = 0;
    //! Stored; false for a level above the engine's profiling verbosity (kDETAILED > kLAYER_NAMES_ONLY > kNONE).
    virtual bool setNvtxVerbosity(ProfilingVerbosity verbosity) noexcept = 0;
    virtual ProfilingVerbosity getNvtxVerbosity() const noexcept = 0;
    //! Ignored: Kiln uses no auxiliary streams (ICudaEngine::getNbAuxStreams is 0).
    virtual void setAuxStreams(cudaStream_t* auxStreams, int32_t nbStreams) noexcept = 0;
    //! Called during enqueueV3 for each debug tensor whose state is on (all are off at first).
    virtual bool setDebugListener(IDebugListener* listener) noexcept = 0;
    virtual IDebugListener* getDebugListener() noexcept = 0;
    virtual bool setTensorDebugState(char const* name, bool flag) noexcept = 0;
    //! Turns the state of every tensor markDebug marked on or off.
    virtual bool setAllTensorsDebugState(bool flag) noexcept = 0;
    virtual bool getDebugState(char const* name) const noexcept = 0;
    //! The configuration the context was made with (its allocation strategy); the context owns it, and changing it
    //! changes nothing about the context.
    virtual IRuntimeConfig* getRuntimeConfig() const noexcept = 0;
    //! Turns on or off the tensors INetworkDefinition::markUnfusedTensorsAsDebugTensors made debug tensors.
    virtual bool setUnfusedTensorsDebugState(bool flag) noexcept = 0;
    virtual bool getUnfusedTensorsDebugState() const noexcept = 0;
    //! The NCCL communicator of a multi-device engine (TensorRT 10.16). Refused (false): Kiln's engines run on one
    //! device.
    virtual bool setCommunicator(void* communicator) noexcept = 0;
};

//! What an engine is made of, layer by layer. Shapes are concrete when an execution context whose input
//! shapes are known is set, else -1 where they are decided at run time.
class IEngineInspector : public INoCopy
{
public:
    ~IEngineInspector() noexcept override = default;
    //! The context must belong to the inspected engine; nullptr to inspect without one.
    virtual bool setExecutionContext(IExecutionContext const* context) noexcept = 0;
    virtual IExecutionContext const* getExecutionContext() const noexcept = 0;
    //! Valid until the next call on this inspector; nullptr for a layer index out of range.
    virtual char const* getLayerInformation(int32_t layerIndex, LayerInformationFormat format) const noexcept = 0;
    //! Valid until the next call on this inspector.
    virtual char const* getEngineInformation(LayerInformationFormat format) const noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
};

} // namespace nvinfer1

extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept;
extern "C" TENSORRTAPI void* createInferRefitter_INTERNAL(void* engine, void* logger, int32_t version) noexcept;

namespace nvinfer1
{
namespace
{
//! Creates a runtime that loads plans; logger must outlive it.
inline IRuntime* createInferRuntime(ILogger& logger) noexcept
{
    return static_cast<IRuntime*>(createInferRuntime_INTERNAL(&logger, NV_TENSORRT_VERSION));
}

//! A refitter of an engine built refittable (kREFIT, kREFIT_INDIVIDUAL); nullptr, with an error, for another engine.
inline IRefitter* createInferRefitter(ICudaEngine& engine, ILogger& logger) noexcept
{
    return static_cast<IRefitter*>(createInferRefitter_INTERNAL(&engine, &logger, NV_TENSORRT_VERSION));
}
} // namespace
} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_ENGINE_H
