// Kiln: builder, builder configuration and optimization profiles (included by NvInfer.h).
#ifndef NV_INFER_BUILDER_H
#define NV_INFER_BUILDER_H

#include "NvInferNetwork.h"

namespace nvinfer1
{

enum class BuilderFlag : int32_t
{
    kFP16 = 0,
    kINT8 = 1,
    kDEBUG = 2,
    kGPU_FALLBACK = 3,
    kREFIT = 4,
    kDISABLE_TIMING_CACHE = 5,
    kTF32 = 6,
    kSPARSE_WEIGHTS = 7,
    kSAFETY_SCOPE = 8,
    kOBEY_PRECISION_CONSTRAINTS = 9,
    kPREFER_PRECISION_CONSTRAINTS = 10,
    kDIRECT_IO = 11,
    kREJECT_EMPTY_ALGORITHMS = 12,
    kVERSION_COMPATIBLE = 13,
    kEXCLUDE_LEAN_RUNTIME = 14,
    kFP8 = 15,
    kERROR_ON_TIMING_CACHE_MISS = 16,
    kBF16 = 17,
    kDISABLE_COMPILATION_CACHE = 18,
    kSTRIP_PLAN = 19,
    kWEIGHTLESS = kSTRIP_PLAN,
    kREFIT_IDENTICAL = 20,
    kWEIGHT_STREAMING = 21,
    kINT4 = 22,
    kREFIT_INDIVIDUAL = 23,
    kSTRICT_NANS = 24,
    kMONITOR_MEMORY = 25,
    kFP4 = 26,
    kEDITABLE_TIMING_CACHE = 27,
};

namespace impl
{
template <>
struct EnumMaxImpl<BuilderFlag>
{
    static constexpr int32_t kVALUE = 28;
};
} // namespace impl

using BuilderFlags = uint32_t;

enum class MemoryPoolType : int32_t
{
    kWORKSPACE = 0,
    kDLA_MANAGED_SRAM = 1,
    kDLA_LOCAL_DRAM = 2,
    kDLA_GLOBAL_DRAM = 3,
    kTACTIC_DRAM = 4,
    kTACTIC_SHARED_MEMORY = 5,
};

namespace impl
{
template <>
struct EnumMaxImpl<MemoryPoolType>
{
    static constexpr int32_t kVALUE = 6;
};
} // namespace impl

//! Min/opt/max shapes of the network's inputs whose dimensions are -1.
class IOptimizationProfile : public INoCopy
{
public:
    virtual bool setDimensions(char const* inputName, OptProfileSelector select, Dims const& dims) noexcept = 0;
    virtual Dims getDimensions(char const* inputName, OptProfileSelector select) const noexcept = 0;
    //! Values of an input shape tensor (TensorRT 10's int32_t form).
    virtual bool setShapeValues(
        char const* inputName, OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept
        = 0;
    virtual int32_t getNbShapeValues(char const* inputName) const noexcept = 0;
    virtual int32_t const* getShapeValues(char const* inputName, OptProfileSelector select) const noexcept = 0;
    virtual bool isValid() const noexcept = 0;

protected:
    ~IOptimizationProfile() noexcept override = default;
};

namespace v_1_0
{
//! Reports the build's progress; the application implements it.
class IProgressMonitor : public IVersionedInterface
{
public:
    IProgressMonitor() = default;
    ~IProgressMonitor() noexcept override = default;
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"IProgressMonitor", 1, 0};
    }
    virtual void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) = 0;
    //! Return false to cancel the build.
    virtual bool stepComplete(char const* phaseName, int32_t step) = 0;
    virtual void phaseFinish(char const* phaseName) = 0;

protected:
    IProgressMonitor(IProgressMonitor const&) = default;
    IProgressMonitor(IProgressMonitor&&) = default;
    IProgressMonitor& operator=(IProgressMonitor const&) & = default;
    IProgressMonitor& operator=(IProgressMonitor&&) & = default;
};
} // namespace v_1_0

using IProgressMonitor = v_1_0::IProgressMonitor;

//! A timing cache's key: a digest of one layer configuration the builder timed.
struct TimingCacheKey
{
    uint8_t data[16];
};

//! What the cache holds for a key: the tactic chosen and how long it took.
struct TimingCacheValue
{
    uint64_t tacticHash;
    float timingMSec;
};

//! The builder's timings of layer configurations on one device, shared between builds; made by
//! IBuilderConfig::createTimingCache and serialized to be loaded by later builds.
class ITimingCache : public INoCopy
{
public:
    ~ITimingCache() noexcept override = default;
    virtual IHostMemory* serialize() const noexcept = 0;
    //! Adds the entries of `inputCache` that this cache lacks; false when it was made on another device or by
    //! another Kiln and `ignoreMismatch` is false.
    virtual bool combine(ITimingCache const& inputCache, bool ignoreMismatch) noexcept = 0;
    virtual bool reset() noexcept = 0;
    //! Writes up to `capacity` keys to `keyBuffer` (which may be null to ask the count); returns the number of keys.
    virtual int64_t queryKeys(TimingCacheKey* keyBuffer, int64_t capacity) const noexcept = 0;
    //! The value of `key`; a value with tacticHash UINT64_MAX when the cache has none.
    virtual TimingCacheValue query(TimingCacheKey const& key) const noexcept = 0;
    virtual bool update(TimingCacheKey const& key, TimingCacheValue const& value) noexcept = 0;
};

class IBuilderConfig : public INoCopy
{
public:
    ~IBuilderConfig() noexcept override = default;
    virtual void setFlags(BuilderFlags builderFlags) noexcept = 0;
    virtual BuilderFlags getFlags() const noexcept = 0;
    virtual void clearFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual void setFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual bool getFlag(BuilderFlag builderFlag) const noexcept = 0;
    virtual void reset() noexcept = 0;
    //! Adds a profile; returns its index, or -1 if it is invalid.
    virtual int32_t addOptimizationProfile(IOptimizationProfile const* profile) noexcept = 0;
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;
    virtual void setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept = 0;
    virtual std::size_t getMemoryPoolLimit(MemoryPoolType pool) const noexcept = 0;
    virtual void setProgressMonitor(IProgressMonitor* monitor) noexcept = 0;
    virtual IProgressMonitor* getProgressMonitor() const noexcept = 0;
    virtual void setBuilderOptimizationLevel(int32_t level) noexcept = 0;
    virtual int32_t getBuilderOptimizationLevel() noexcept = 0;
    //! A timing cache read from `blob` (`size` 0: an empty one); nullptr when the blob is not a timing cache.
    virtual ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept = 0;
    //! Builds with this config read and extend `cache`, which must outlive them; false when it was made on another
    //! device and `ignoreMismatch` is false.
    virtual bool setTimingCache(ITimingCache const& cache, bool ignoreMismatch) noexcept = 0;
    virtual ITimingCache const* getTimingCache() const noexcept = 0;
};

class IBuilder : public INoCopy
{
public:
    ~IBuilder() noexcept override = default;
    virtual bool platformHasFastFp16() const noexcept = 0;
    virtual int32_t getNbDLACores() const noexcept = 0;
    virtual IBuilderConfig* createBuilderConfig() noexcept = 0;
    //! kEXPLICIT_BATCH is accepted and ignored: Kiln's networks always have an explicit batch.
    virtual INetworkDefinition* createNetworkV2(NetworkDefinitionCreationFlags flags) noexcept = 0;
    virtual IOptimizationProfile* createOptimizationProfile() noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual void reset() noexcept = 0;
    //! The plan, or nullptr with the reason logged. The caller deletes the result.
    virtual IHostMemory* buildSerializedNetwork(INetworkDefinition& network, IBuilderConfig& config) noexcept = 0;
    virtual bool isNetworkSupported(INetworkDefinition const& network, IBuilderConfig const& config) const noexcept
        = 0;
    virtual ILogger* getLogger() const noexcept = 0;
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;
    //! The allocator for the device memory the builder uses while it builds (the buffers it times convolutions
    //! in); nullptr: Kiln's default. Engines and contexts take the allocator of the runtime that loads the plan
    //! (IRuntime::setGpuAllocator).
    virtual void setGpuAllocator(IGpuAllocator* /*allocator*/) noexcept {}
};

} // namespace nvinfer1

extern "C" TENSORRTAPI void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept;

namespace nvinfer1
{
namespace
{
//! Creates a builder; logger must outlive it.
inline IBuilder* createInferBuilder(ILogger& logger) noexcept
{
    return static_cast<IBuilder*>(createInferBuilder_INTERNAL(&logger, NV_TENSORRT_VERSION));
}
} // namespace
} // namespace nvinfer1

#endif // NV_INFER_BUILDER_H
