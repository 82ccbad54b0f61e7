// Kiln: builder, builder configuration and optimization profiles (included by NvInfer.h).
#ifndef NV_INFER_BUILDER_H
#define NV_INFER_BUILDER_H

#include "NvInferNetwork.h"

namespace nvinfer1
{

//! The calibration algorithm an IInt8Calibrator asks for. Deprecated in TensorRT 10.1 (explicit quantization).
enum class CalibrationAlgoType : int32_t
{
    kLEGACY_CALIBRATION = 0,
    kENTROPY_CALIBRATION = 1,
    kENTROPY_CALIBRATION_2 = 2,
    kMINMAX_CALIBRATION = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<CalibrationAlgoType>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//! INT8 calibration data the application supplies (deprecated in TensorRT 10.1). With BuilderFlag::kINT8 the builder
//! calls them as TensorRT does (docs/quantization.md, "Calibration and implicit quantization"). They are declared
//! without noexcept so that overrides with and without it compile.
class IInt8Calibrator : public IVersionedInterface
{
public:
    //! Deprecated in TensorRT 10.0 (no implicit batch).
    virtual int32_t getBatchSize() const = 0;
    virtual bool getBatch(void* bindings[], char const* names[], int32_t nbBindings) = 0;
    virtual void const* readCalibrationCache(std::size_t& length) = 0;
    virtual void writeCalibrationCache(void const* ptr, std::size_t length) = 0;
    virtual CalibrationAlgoType getAlgorithm() = 0;
    ~IInt8Calibrator() noexcept override = default;
};

namespace v_1_0
{
class IInt8EntropyCalibrator : public IInt8Calibrator
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8EntropyCalibrator", 1, 0};
    }
    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kENTROPY_CALIBRATION;
    }
    ~IInt8EntropyCalibrator() noexcept override = default;
};

class IInt8EntropyCalibrator2 : public IInt8Calibrator
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8EntropyCalibrator2", 1, 0};
    }
    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kENTROPY_CALIBRATION_2;
    }
    ~IInt8EntropyCalibrator2() noexcept override = default;
};

class IInt8MinMaxCalibrator : public IInt8Calibrator
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8MinMaxCalibrator", 1, 0};
    }
    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kMINMAX_CALIBRATION;
    }
    ~IInt8MinMaxCalibrator() noexcept override = default;
};

class IInt8LegacyCalibrator : public IInt8Calibrator
{
public:
    //! TensorRT gives the legacy calibrator the base interface's name.
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IInt8Calibrator", 1, 0};
    }
    CalibrationAlgoType getAlgorithm() noexcept override
    {
        return CalibrationAlgoType::kLEGACY_CALIBRATION;
    }
    virtual double getQuantile() const = 0;
    virtual double getRegressionCutoff() const = 0;
    virtual void const* readHistogramCache(std::size_t& length) = 0;
    virtual void writeHistogramCache(void const* ptr, std::size_t length) = 0;
    ~IInt8LegacyCalibrator() noexcept override = default;
};
} // namespace v_1_0

using IInt8EntropyCalibrator = v_1_0::IInt8EntropyCalibrator;
using IInt8EntropyCalibrator2 = v_1_0::IInt8EntropyCalibrator2;
using IInt8MinMaxCalibrator = v_1_0::IInt8MinMaxCalibrator;
using IInt8LegacyCalibrator = v_1_0::IInt8LegacyCalibrator;

// The algorithm selector family (deprecated in TensorRT 10.8, superseded by editable timing caches). Kiln does not
// offer its tactic choices to a selector: IBuilderConfig::setAlgorithmSelector refuses selectors, so Kiln never
// makes these objects or calls a selector. Declared for code that names them.

//! The format of one input or output of an algorithm.
class IAlgorithmIOInfo : public INoCopy
{
public:
    virtual DataType getDataType() const noexcept = 0;
    //! In vectors for vectorized formats.
    virtual Dims getStrides() const noexcept = 0;
    //! -1 for formats that are not vectorized.
    virtual int64_t getVectorizedDim() const noexcept = 0;
    virtual int64_t getComponentsPerElement() const noexcept = 0;

protected:
    ~IAlgorithmIOInfo() noexcept override = default;
};

//! Which implementation and tactic an algorithm is.
class IAlgorithmVariant : public INoCopy
{
public:
    virtual int64_t getImplementation() const noexcept = 0;
    virtual int64_t getTactic() const noexcept = 0;

protected:
    ~IAlgorithmVariant() noexcept override = default;
};

//! The layer (or fused layers) algorithms are chosen for, with its inputs' and outputs' shapes per profile.
class IAlgorithmContext : public INoCopy
{
public:
    virtual char const* getName() const noexcept = 0;
    virtual Dims getDimensions(int32_t index, OptProfileSelector select) const noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;

protected:
    ~IAlgorithmContext() noexcept override = default;
};

//! One candidate: its variant, timing, workspace and each input's and output's format (inputs first).
class IAlgorithm : public INoCopy
{
public:
    virtual IAlgorithmVariant const& getAlgorithmVariant() const noexcept = 0;
    virtual float getTimingMSec() const noexcept = 0;
    virtual std::size_t getWorkspaceSize() const noexcept = 0;
    virtual IAlgorithmIOInfo const* getAlgorithmIOInfoByIndex(int32_t index) const noexcept = 0;

protected:
    ~IAlgorithm() noexcept override = default;
};

namespace v_1_0
{
//! Implemented by applications; declared without noexcept so that overrides with and without it compile.
class IAlgorithmSelector : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return InterfaceInfo{"IAlgorithmSelector", 1, 0};
    }
    //! Writes the indices of the acceptable choices into selection and returns how many.
    virtual int32_t selectAlgorithms(
        IAlgorithmContext const& context, IAlgorithm const* const* choices, int32_t nbChoices, int32_t* selection)
        = 0;
    virtual void reportAlgorithms(
        IAlgorithmContext const* const* algoContexts, IAlgorithm const* const* algoChoices, int32_t nbAlgorithms)
        = 0;
    ~IAlgorithmSelector() noexcept override = default;
};
} // namespace v_1_0

using IAlgorithmSelector = v_1_0::IAlgorithmSelector;

using QuantizationFlags = uint32_t;

//! INT8 calibration options (deprecated in TensorRT 10.1); stored by Kiln, which always calibrates
//! the network as written, before fusion.
enum class QuantizationFlag : int32_t
{
    kCALIBRATE_BEFORE_FUSION = 0,
};

namespace impl
{
template <>
struct EnumMaxImpl<QuantizationFlag>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//! The platform an engine is built to run on. Kiln builds for the platform it runs on only.
enum class RuntimePlatform : int32_t
{
    kSAME_AS_BUILD = 0,
    kWINDOWS_AMD64 = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<RuntimePlatform>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

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
    kDISTRIBUTIVE_INDEPENDENCE = 28, //!< in TensorRT 10.15; stored, changes nothing Kiln builds
};

namespace impl
{
template <>
struct EnumMaxImpl<BuilderFlag>
{
    static constexpr int32_t kVALUE = 29;
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

//! TensorRT's preview features: stored by Kiln, none changes what it builds.
enum class PreviewFeature : int32_t
{
    kPROFILE_SHARING_0806 = 0, //!< deprecated in TensorRT 10.0 (always on)
    kALIASED_PLUGIN_IO_10_03 = 1,
    kRUNTIME_ACTIVATION_RESIZE_10_10 = 2,
    //! Multi-device engines (TensorRT 10.16): stored; Kiln builds none (addDistCollective is refused).
    kMULTIDEVICE_RUNTIME_10_16 = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<PreviewFeature>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

//! Which GPUs other than the building one an engine must run on. Kiln builds for the GPU it builds on (kNONE);
//! IBuilderConfig::setHardwareCompatibilityLevel refuses the others.
enum class HardwareCompatibilityLevel : int32_t
{
    kNONE = 0,
    kAMPERE_PLUS = 1,
    kSAME_COMPUTE_CAPABILITY = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<HardwareCompatibilityLevel>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! How hard the builder searches for tilings that keep data on chip (in TensorRT 10.15). Kiln does no tiling: only
//! kNONE is accepted.
enum class TilingOptimizationLevel : int32_t
{
    kNONE = 0,
    kFAST = 1,
    kMODERATE = 2,
    kFULL = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<TilingOptimizationLevel>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

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

namespace v_1_0
{
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
    //! The hash of no tactic: what ITimingCache::query gives for a key it does not hold.
    static constexpr uint64_t kINVALID_TACTIC_HASH = UINT64_MAX;
};
} // namespace v_1_0

using TimingCacheKey = v_1_0::TimingCacheKey;
using TimingCacheValue = v_1_0::TimingCacheValue;

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
    //! Stored: the builder times each convolution algorithm a fixed number of times.
    virtual void setAvgTimingIterations(int32_t avgTiming) noexcept = 0;
    virtual int32_t getAvgTimingIterations() const noexcept = 0;
    //! kSTANDARD only; another capability is refused with an error (the config keeps kSTANDARD).
    virtual void setEngineCapability(EngineCapability capability) noexcept = 0;
    virtual EngineCapability getEngineCapability() const noexcept = 0;
    //! Kept, not owned: with BuilderFlag::kINT8 and a network without Q/DQ layers, the builder calibrates with it.
    virtual void setInt8Calibrator(IInt8Calibrator* calibrator) noexcept = 0;
    virtual IInt8Calibrator* getInt8Calibrator() const noexcept = 0;
    virtual void setFlags(BuilderFlags builderFlags) noexcept = 0;
    virtual BuilderFlags getFlags() const noexcept = 0;
    virtual void clearFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual void setFlag(BuilderFlag builderFlag) noexcept = 0;
    virtual bool getFlag(BuilderFlag builderFlag) const noexcept = 0;
    //! Kiln has no DLA: kDLA is refused with an error; every layer's device is kGPU and canRunOnDLA is false.
    virtual void setDeviceType(ILayer const* layer, DeviceType deviceType) noexcept = 0;
    virtual DeviceType getDeviceType(ILayer const* layer) const noexcept = 0;
    virtual bool isDeviceTypeSet(ILayer const* layer) const noexcept = 0;
    virtual void resetDeviceType(ILayer const* layer) noexcept = 0;
    virtual bool canRunOnDLA(ILayer const* layer) const noexcept = 0;
    virtual void setDLACore(int32_t dlaCore) noexcept = 0;
    virtual int32_t getDLACore() const noexcept = 0;
    virtual void setDefaultDeviceType(DeviceType deviceType) noexcept = 0;
    virtual DeviceType getDefaultDeviceType() const noexcept = 0;
    virtual void reset() noexcept = 0;
    //! Stored: the CUDA backend times kernels on a stream of its own.
    virtual void setProfileStream(cudaStream_t const stream) noexcept = 0;
    virtual cudaStream_t getProfileStream() const noexcept = 0;
    //! Adds a profile; returns its index, or -1 if it is invalid.
    virtual int32_t addOptimizationProfile(IOptimizationProfile const* profile) noexcept = 0;
    virtual int32_t getNbOptimizationProfiles() const noexcept = 0;
    //! Stored, and reported by the engine (ICudaEngine::getProfilingVerbosity).
    virtual void setProfilingVerbosity(ProfilingVerbosity verbosity) noexcept = 0;
    virtual ProfilingVerbosity getProfilingVerbosity() const noexcept = 0;
    //! Refused with an error (Kiln offers no tactic choices to a selector): getAlgorithmSelector stays nullptr.
    //! Passing nullptr is accepted.
    virtual void setAlgorithmSelector(IAlgorithmSelector* selector) noexcept = 0;
    virtual IAlgorithmSelector* getAlgorithmSelector() const noexcept = 0;
    //! The shapes calibration runs at (kOPT); false for a profile that is not valid or not the builder's own.
    virtual bool setCalibrationProfile(IOptimizationProfile const* profile) noexcept = 0;
    virtual IOptimizationProfile const* getCalibrationProfile() noexcept = 0;
    virtual void setQuantizationFlags(QuantizationFlags flags) noexcept = 0;
    virtual QuantizationFlags getQuantizationFlags() const noexcept = 0;
    virtual void clearQuantizationFlag(QuantizationFlag flag) noexcept = 0;
    virtual void setQuantizationFlag(QuantizationFlag flag) noexcept = 0;
    virtual bool getQuantizationFlag(QuantizationFlag flag) const noexcept = 0;
    //! Stored (false for bits outside TacticSource), and reported by the engine.
    virtual bool setTacticSources(TacticSources tacticSources) noexcept = 0;
    virtual TacticSources getTacticSources() const noexcept = 0;
    //! A timing cache read from `blob` (`size` 0: an empty one); nullptr when the blob is not a timing cache.
    virtual ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept = 0;
    //! Builds with this config read and extend `cache`, which must outlive them; false when it was made on another
    //! device and `ignoreMismatch` is false.
    virtual bool setTimingCache(ITimingCache const& cache, bool ignoreMismatch) noexcept = 0;
    virtual ITimingCache const* getTimingCache() const noexcept = 0;
    virtual void setMemoryPoolLimit(MemoryPoolType pool, std::size_t poolSize) noexcept = 0;
    virtual std::size_t getMemoryPoolLimit(MemoryPoolType pool) const noexcept = 0;
    virtual void setPreviewFeature(PreviewFeature feature, bool enable) noexcept = 0;
    virtual bool getPreviewFeature(PreviewFeature feature) const noexcept = 0;
    virtual void setBuilderOptimizationLevel(int32_t level) noexcept = 0;
    virtual int32_t getBuilderOptimizationLevel() noexcept = 0;
    //! kNONE only; the other levels are refused with an error.
    virtual void setHardwareCompatibilityLevel(HardwareCompatibilityLevel hardwareCompatibilityLevel) noexcept = 0;
    virtual HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept = 0;
    //! The plugin libraries to serialize with version-compatible plans. Kiln keeps the list (duplicates are an
    //! error and leave it unchanged); its plans already name the library each plugin came from, and it does not
    //! copy the libraries into the plan.
    virtual void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept = 0;
    //! nullptr for an index out of range.
    virtual char const* getPluginToSerialize(int32_t index) const noexcept = 0;
    virtual int32_t getNbPluginsToSerialize() const noexcept = 0;
    //! Stored; Kiln uses no auxiliary streams.
    virtual void setMaxAuxStreams(int32_t nbStreams) noexcept = 0;
    virtual int32_t getMaxAuxStreams() const noexcept = 0;
    virtual void setProgressMonitor(IProgressMonitor* monitor) noexcept = 0;
    virtual IProgressMonitor* getProgressMonitor() const noexcept = 0;
    //! kSAME_AS_BUILD only; another platform is refused with an error.
    virtual void setRuntimePlatform(RuntimePlatform runtimePlatform) noexcept = 0;
    virtual RuntimePlatform getRuntimePlatform() const noexcept = 0;
    //! Stored (-1: the builder decides).
    virtual void setMaxNbTactics(int32_t maxNbTactics) noexcept = 0;
    virtual int32_t getMaxNbTactics() const noexcept = 0;
    //! kNONE only (Kiln does no tiling); another level is refused with an error (false, the level stays kNONE).
    virtual bool setTilingOptimizationLevel(TilingOptimizationLevel level) noexcept = 0;
    virtual TilingOptimizationLevel getTilingOptimizationLevel() const noexcept = 0;
    //! Stored (a negative size is refused with an error); without tiling no build reads it. -1 until set: the
    //! builder's choice.
    virtual bool setL2LimitForTiling(int64_t size) noexcept = 0;
    virtual int64_t getL2LimitForTiling() const noexcept = 0;
    //! Refused with an error (false; getRemoteAutoTuningConfig stays nullptr): remote auto-tuning serves kSAFETY
    //! engines, which Kiln does not build.
    virtual bool setRemoteAutoTuningConfig(char const* config) noexcept = 0;
    virtual char const* getRemoteAutoTuningConfig() const noexcept = 0;
};

class IBuilder : public INoCopy
{
public:
    ~IBuilder() noexcept override = default;
    //! Deprecated in TensorRT 10.5.
    virtual bool platformHasFastFp16() const noexcept = 0;
    //! False: Kiln's INT8 kernels are the CPU backend's; the GPU has none yet (deprecated in TensorRT 10.5).
    virtual bool platformHasFastInt8() const noexcept = 0;
    //! 0: Kiln has no DLA.
    virtual int32_t getMaxDLABatchSize() const noexcept = 0;
    virtual int32_t getNbDLACores() const noexcept = 0;
    //! The allocator for the device memory the builder uses while it builds (the buffers it times convolutions
    //! in); nullptr: Kiln's default. Engines and contexts take the allocator of the runtime that loads the plan
    //! (IRuntime::setGpuAllocator).
    virtual void setGpuAllocator(IGpuAllocator* /*allocator*/) noexcept { }
    virtual IBuilderConfig* createBuilderConfig() noexcept = 0;
    //! kEXPLICIT_BATCH is accepted and ignored: Kiln's networks always have an explicit batch.
    virtual INetworkDefinition* createNetworkV2(NetworkDefinitionCreationFlags flags) noexcept = 0;
    virtual IOptimizationProfile* createOptimizationProfile() noexcept = 0;
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual void reset() noexcept = 0;
    //! False: Kiln's CUDA backend never computes FP32 at TF32's precision; its FP32 attention multiplies in 3xTF32,
    //! which keeps FP32's accuracy (deprecated in TensorRT 10.5).
    virtual bool platformHasTf32() const noexcept = 0;
    //! The plan, or nullptr with the reason logged. The caller deletes the result.
    virtual IHostMemory* buildSerializedNetwork(INetworkDefinition& network, IBuilderConfig& config) noexcept = 0;
    //! Builds the plan and writes it to writer; false (with the reason logged) when the build fails or the writer
    //! takes fewer bytes than it is given.
    virtual bool buildSerializedNetworkToStream(
        INetworkDefinition& network, IBuilderConfig& config, IStreamWriter& writer) noexcept = 0;
    //! TensorRT 10.15's form that also gives the kernels' source text of a kSAFETY engine. Kiln builds no safety
    //! engines: kernelText is set to nullptr and the plan is buildSerializedNetwork's.
    IHostMemory* buildSerializedNetwork(
        INetworkDefinition& network, IBuilderConfig& config, IHostMemory*& kernelText) noexcept
    {
        kernelText = nullptr;
        return buildSerializedNetwork(network, config);
    }
    //! The engine of the plan buildSerializedNetwork would give, loaded as a runtime with this builder's logger
    //! would load it; nullptr with the reason logged. The caller deletes it.
    virtual ICudaEngine* buildEngineWithConfig(INetworkDefinition& network, IBuilderConfig& config) noexcept = 0;
    virtual bool isNetworkSupported(INetworkDefinition const& network, IBuilderConfig const& config) const noexcept = 0;
    virtual ILogger* getLogger() const noexcept = 0;
    virtual bool setMaxThreads(int32_t maxThreads) noexcept = 0;
    virtual int32_t getMaxThreads() const noexcept = 0;
    virtual IPluginRegistry& getPluginRegistry() noexcept = 0;
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

//! The registry whose plugins builds of `capability` engines may use: getPluginRegistry() for kSTANDARD, nullptr for
//! the other capabilities (Kiln builds no others).
extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getBuilderPluginRegistry(
    nvinfer1::EngineCapability capability) noexcept;

//! Where TensorRT 10.16 loads its internal libraries from when building. Kiln has none to load: the path is kept
//! (nullptr or a path that is not a directory is refused, "" resets it) and true returned.
extern "C" TENSORRTAPI bool setInternalLibraryPath(AsciiChar const* path) noexcept;

namespace safe
{
//! The safety runtime's registry, which Kiln does not have (TensorRT declares it only by name here too).
class IPluginRegistry;
} // namespace safe

//! The registry for building kSAFETY engines: always nullptr in Kiln, which builds no safety engines (an error is
//! logged when kSAFETY is asked for; TensorRT also answers nullptr for the other capabilities).
extern "C" TENSORRTAPI nvinfer1::safe::IPluginRegistry* getBuilderSafePluginRegistry(
    nvinfer1::EngineCapability capability) noexcept;
} // namespace nvinfer1

#endif // NV_INFER_BUILDER_H
