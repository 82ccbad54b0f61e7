// Kiln: runtime, engine and execution context (included by NvInferRuntime.h).
#ifndef NV_INFER_RUNTIME_ENGINE_H
#define NV_INFER_RUNTIME_ENGINE_H

#include "NvInferRuntime.h"

namespace nvinfer1
{

class ICudaEngine;
class IExecutionContext;
class IEngineInspector;

//! How IEngineInspector writes what it reports.
enum class LayerInformationFormat : int32_t
{
    kONELINE = 0, //!< one line per layer
    kJSON = 1,    //!< a JSON object per layer; the engine as {"Layers": [...], "Bindings": [...]}
};

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

//! Loads plans. Delete it after the engines it made.
class IRuntime : public INoCopy
{
public:
    ~IRuntime() noexcept override = default;
    //! nullptr (with the reason logged) for a plan that is truncated, corrupted,
    //! from another format version, or that needs a plugin that is not registered.
    virtual ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept = 0;
    //! The allocator for the device memory of the engines deserialized after this call and of their contexts
    //! (nullptr: Kiln's default, which pools through CUDA's stream-ordered allocator). It must outlive them.
    virtual void setGpuAllocator(IGpuAllocator* allocator) noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual ILogger* getLogger() const noexcept = 0;
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
};

//! A built network, immutable and shared by its execution contexts.
class ICudaEngine : public INoCopy
{
public:
    ~ICudaEngine() noexcept override = default;
    virtual int32_t getNbIOTensors() const noexcept = 0;
    virtual char const* getIOTensorName(int32_t index) const noexcept = 0;
    //! Dims with -1 where the extent is chosen at run time; {-1, {}} for an unknown name.
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;
    virtual DataType getTensorDataType(char const* tensorName) const noexcept = 0;
    virtual TensorIOMode getTensorIOMode(char const* tensorName) const noexcept = 0;
    virtual TensorFormat getTensorFormat(char const* tensorName) const noexcept = 0;
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;
    virtual Dims getProfileShape(char const* tensorName, int32_t profileIndex, OptProfileSelector select) const noexcept
        = 0;
    virtual int32_t getNbLayers() const noexcept = 0;
    virtual IHostMemory* serialize() const noexcept = 0;
    //! nullptr (with the reason logged) when a plugin cannot attach or the memory cannot be allocated; the engine
    //! stays usable. With kUSER_MANAGED the context owns no activation memory until setDeviceMemoryV2.
    virtual IExecutionContext* createExecutionContext(
        ExecutionContextAllocationStrategy strategy = ExecutionContextAllocationStrategy::kSTATIC) noexcept
        = 0;
    //! Deprecated in TensorRT 10: createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED).
    IExecutionContext* createExecutionContextWithoutDeviceMemory() noexcept
    {
        return createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED);
    }
    virtual char const* getName() const noexcept = 0;
    virtual bool isShapeInferenceIO(char const* tensorName) const noexcept = 0;
    virtual TensorLocation getTensorLocation(char const* tensorName) const noexcept = 0;
    //! The bytes of memory a context needs (what a kUSER_MANAGED context must be given): activations and plugin
    //! workspaces, in device memory on the CUDA backend and in host memory on Kiln's CPU backend.
    virtual int64_t getDeviceMemorySizeV2() const noexcept = 0;
    //! The same for one optimization profile; -1 (with an error reported) for a profile that does not exist.
    virtual int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept = 0;
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
    //! Describes the engine's layers (delete it before the engine). Kiln always gives the detailed view:
    //! layer types, chosen precisions, tensor types and shapes, and for plugins where their creator came from.
    virtual IEngineInspector* createEngineInspector() const noexcept = 0;
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

//! The state of one inference stream: shapes, tensor addresses, plugin clones,
//! scratch memory. One thread at a time; several contexts run at once.
class IExecutionContext : public INoCopy
{
public:
    ~IExecutionContext() noexcept override = default;
    virtual ICudaEngine const& getEngine() const noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    virtual bool setInputShape(char const* tensorName, Dims const& dims) noexcept = 0;
    //! For outputs, the shape resolved from the current input shapes; -1 for an extent that is data-dependent until
    //! a run has computed it (then the last run's extent, until an input shape or shape value changes).
    virtual Dims getTensorShape(char const* tensorName) const noexcept = 0;
    virtual bool allInputDimensionsSpecified() const noexcept = 0;
    virtual bool setTensorAddress(char const* tensorName, void* data) noexcept = 0;
    virtual void const* getTensorAddress(char const* tensorName) const noexcept = 0;
    virtual bool setInputTensorAddress(char const* tensorName, void const* data) noexcept = 0;
    virtual void* getOutputTensorAddress(char const* tensorName) const noexcept = 0;
    virtual bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept = 0;
    virtual int32_t getOptimizationProfile() const noexcept = 0;
    //! Runs the network on stream (the CPU backend accepts a null stream and runs synchronously).
    virtual bool enqueueV3(cudaStream_t stream) noexcept = 0;
    //! Synchronous execution; bindings[i] is the address of I/O tensor i, in getIOTensorName order.
    virtual bool executeV2(void* const* bindings) noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! Per-layer times of every later run go to `profiler` (nullptr: none); it must outlive its use.
    virtual void setProfiler(IProfiler* profiler) noexcept = 0;
    virtual IProfiler* getProfiler() const noexcept = 0;
    //! True (the default): each run reports its layer times itself. False: only reportToProfiler reports them.
    virtual void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept = 0;
    virtual bool getEnqueueEmitsProfile() const noexcept = 0;
    //! Reports the last run's layer times to the profiler; false if no profiler is set.
    virtual bool reportToProfiler() const noexcept = 0;
    //! Gives a kUSER_MANAGED context its memory: at least ICudaEngine::getDeviceMemorySizeV2() bytes (`size`),
    //! 256-byte aligned, in device memory on the CUDA backend and in host memory on Kiln's CPU backend. The memory
    //! is in use from enqueueV3 until the work it queued is done. An error (and the memory not taken) when it is
    //! too small, misaligned, or the context allocates its own memory.
    virtual void setDeviceMemoryV2(void* memory, int64_t size) noexcept = 0;
    //! Deprecated in TensorRT 10.1: setDeviceMemoryV2, trusting that the memory is large enough.
    virtual void setDeviceMemory(void* memory) noexcept = 0;
    //! The bytes of memory the context needs for its current input shapes and profile; 0 (with an error reported)
    //! when they are not all known or do not fit the profile. Kiln's plan keeps every tensor at a fixed place sized
    //! for the profiles' largest shapes, so this is getDeviceMemorySizeV2() for any valid shapes.
    virtual size_t updateDeviceMemorySizeForShapes() noexcept = 0;
    //! The allocator that gives output `tensorName` its memory in later runs (nullptr: none; the address set with
    //! setTensorAddress is used). False (with an error) for a name that is not an output.
    virtual bool setOutputAllocator(char const* tensorName, IOutputAllocator* outputAllocator) noexcept = 0;
    virtual IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept = 0;
    //! The most bytes output `tensorName` can take for the current input shapes: its upper bound where its shape is
    //! data-dependent. -1 (with an error) for a name that is not an output or when the input shapes are not all set.
    virtual int64_t getMaxOutputSize(char const* tensorName) const noexcept = 0;
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

namespace nvinfer1
{
namespace
{
//! Creates a runtime that loads plans; logger must outlive it.
inline IRuntime* createInferRuntime(ILogger& logger) noexcept
{
    return static_cast<IRuntime*>(createInferRuntime_INTERNAL(&logger, NV_TENSORRT_VERSION));
}
} // namespace
} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_ENGINE_H
