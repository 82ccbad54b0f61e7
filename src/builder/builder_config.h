// IBuilderConfig: flags, memory limits, optimization profiles, progress monitor, backend.
#pragma once

#include "builder/optimization_profile.h"
#include "backend/timing_cache.h"

#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <NvInfer.h>

#include <array>
#include <string>
#include <vector>

namespace kiln::builder
{

//! TensorRT's default tactic sources: edge-mask and JIT convolutions (the engine reports them back).
nvinfer1::TacticSources defaultTacticSources();

class BuilderConfig final : public nvinfer1::IBuilderConfig
{
public:
    BuilderConfig();

    void setFlags(nvinfer1::BuilderFlags builderFlags) noexcept override
    {
        mFlags = builderFlags;
    }
    nvinfer1::BuilderFlags getFlags() const noexcept override
    {
        return mFlags;
    }
    void clearFlag(nvinfer1::BuilderFlag flag) noexcept override
    {
        mFlags &= ~(1U << static_cast<uint32_t>(flag));
    }
    void setFlag(nvinfer1::BuilderFlag flag) noexcept override
    {
        mFlags |= 1U << static_cast<uint32_t>(flag);
    }
    bool getFlag(nvinfer1::BuilderFlag flag) const noexcept override
    {
        return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    }
    void reset() noexcept override;
    int32_t addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
    int32_t getNbOptimizationProfiles() const noexcept override
    {
        return static_cast<int32_t>(mProfiles.size());
    }
    void setMemoryPoolLimit(nvinfer1::MemoryPoolType pool, std::size_t poolSize) noexcept override;
    std::size_t getMemoryPoolLimit(nvinfer1::MemoryPoolType pool) const noexcept override;
    void setProgressMonitor(nvinfer1::IProgressMonitor* monitor) noexcept override
    {
        mMonitor = monitor;
    }
    nvinfer1::IProgressMonitor* getProgressMonitor() const noexcept override
    {
        return mMonitor;
    }
    void setBuilderOptimizationLevel(int32_t level) noexcept override
    {
        mOptimizationLevel = level;
    }
    int32_t getBuilderOptimizationLevel() noexcept override
    {
        return mOptimizationLevel;
    }

    // TensorRT 10's other options (builder_config_options.cpp): stored, or refused with an error naming the call.
    void setAvgTimingIterations(int32_t avgTiming) noexcept override;
    int32_t getAvgTimingIterations() const noexcept override
    {
        return mAvgTimingIterations;
    }
    void setEngineCapability(nvinfer1::EngineCapability capability) noexcept override;
    nvinfer1::EngineCapability getEngineCapability() const noexcept override
    {
        return nvinfer1::EngineCapability::kSTANDARD;
    }
    void setInt8Calibrator(nvinfer1::IInt8Calibrator* calibrator) noexcept override
    {
        mCalibrator = calibrator;
    }
    nvinfer1::IInt8Calibrator* getInt8Calibrator() const noexcept override
    {
        return mCalibrator;
    }
    void setAlgorithmSelector(nvinfer1::IAlgorithmSelector* selector) noexcept override;
    nvinfer1::IAlgorithmSelector* getAlgorithmSelector() const noexcept override
    {
        return nullptr;
    }
    void setDeviceType(nvinfer1::ILayer const* layer, nvinfer1::DeviceType deviceType) noexcept override;
    nvinfer1::DeviceType getDeviceType(nvinfer1::ILayer const* /*layer*/) const noexcept override
    {
        return nvinfer1::DeviceType::kGPU;
    }
    bool isDeviceTypeSet(nvinfer1::ILayer const* /*layer*/) const noexcept override
    {
        return false;
    }
    void resetDeviceType(nvinfer1::ILayer const* /*layer*/) noexcept override { }
    bool canRunOnDLA(nvinfer1::ILayer const* /*layer*/) const noexcept override
    {
        return false;
    }
    void setDLACore(int32_t dlaCore) noexcept override;
    int32_t getDLACore() const noexcept override
    {
        return -1;
    }
    void setDefaultDeviceType(nvinfer1::DeviceType deviceType) noexcept override;
    nvinfer1::DeviceType getDefaultDeviceType() const noexcept override
    {
        return nvinfer1::DeviceType::kGPU;
    }
    void setProfileStream(cudaStream_t const stream) noexcept override
    {
        mProfileStream = stream;
    }
    cudaStream_t getProfileStream() const noexcept override
    {
        return mProfileStream;
    }
    void setProfilingVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
    nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override
    {
        return mProfilingVerbosity;
    }
    bool setCalibrationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
    nvinfer1::IOptimizationProfile const* getCalibrationProfile() noexcept override
    {
        return mCalibrationProfile;
    }
    void setQuantizationFlags(nvinfer1::QuantizationFlags flags) noexcept override
    {
        mQuantizationFlags = flags;
    }
    nvinfer1::QuantizationFlags getQuantizationFlags() const noexcept override
    {
        return mQuantizationFlags;
    }
    void clearQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override
    {
        mQuantizationFlags &= ~(1U << static_cast<uint32_t>(flag));
    }
    void setQuantizationFlag(nvinfer1::QuantizationFlag flag) noexcept override
    {
        mQuantizationFlags |= 1U << static_cast<uint32_t>(flag);
    }
    bool getQuantizationFlag(nvinfer1::QuantizationFlag flag) const noexcept override
    {
        return (mQuantizationFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    }
    bool setTacticSources(nvinfer1::TacticSources tacticSources) noexcept override;
    nvinfer1::TacticSources getTacticSources() const noexcept override
    {
        return mTacticSources;
    }
    void setPreviewFeature(nvinfer1::PreviewFeature feature, bool enable) noexcept override;
    bool getPreviewFeature(nvinfer1::PreviewFeature feature) const noexcept override;
    void setHardwareCompatibilityLevel(nvinfer1::HardwareCompatibilityLevel level) noexcept override;
    nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override
    {
        return nvinfer1::HardwareCompatibilityLevel::kNONE;
    }
    void setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept override;
    char const* getPluginToSerialize(int32_t index) const noexcept override;
    int32_t getNbPluginsToSerialize() const noexcept override
    {
        return static_cast<int32_t>(mPluginsToSerialize.size());
    }
    void setMaxAuxStreams(int32_t nbStreams) noexcept override;
    int32_t getMaxAuxStreams() const noexcept override
    {
        return mMaxAuxStreams;
    }
    void setRuntimePlatform(nvinfer1::RuntimePlatform runtimePlatform) noexcept override;
    nvinfer1::RuntimePlatform getRuntimePlatform() const noexcept override
    {
        return nvinfer1::RuntimePlatform::kSAME_AS_BUILD;
    }
    void setMaxNbTactics(int32_t maxNbTactics) noexcept override
    {
        mMaxNbTactics = maxNbTactics;
    }
    int32_t getMaxNbTactics() const noexcept override
    {
        return mMaxNbTactics;
    }
    bool setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel level) noexcept override;
    nvinfer1::TilingOptimizationLevel getTilingOptimizationLevel() const noexcept override
    {
        return nvinfer1::TilingOptimizationLevel::kNONE;
    }
    bool setL2LimitForTiling(int64_t size) noexcept override;
    int64_t getL2LimitForTiling() const noexcept override
    {
        return mL2LimitForTiling;
    }
    bool setRemoteAutoTuningConfig(char const* config) noexcept override;
    char const* getRemoteAutoTuningConfig() const noexcept override
    {
        return nullptr;
    }

    nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept override;
    bool setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept override;
    nvinfer1::ITimingCache const* getTimingCache() const noexcept override
    {
        return mTimingCache;
    }
    //! The cache builds read and add to: the application's (TensorRT's builder, too, updates the cache it was
    //! given), or nullptr.
    backend::TimingCache* timingCache() const
    {
        return mTimingCache;
    }
    //! The device the configured backend times kernels on (timing caches record it); empty where it times nothing.
    std::string timedDevice() const;

    std::vector<ProfileShapes> const& profiles() const
    {
        return mProfiles;
    }
    //! Adds a profile already checked (the calibration build's copy of another configuration's).
    void addProfileShapes(ProfileShapes const& shapes)
    {
        mProfiles.push_back(shapes);
    }
    //! The shapes of the calibration profile, as they were when it was set; nullptr where none is set.
    ProfileShapes const* calibrationShapes() const
    {
        return mCalibrationProfile != nullptr ? &mCalibrationShapes : nullptr;
    }
    Backend backend() const
    {
        return mBackend;
    }
    void setBackend(Backend backend)
    {
        mBackend = backend;
    }
    ConvolutionLayout convolutionLayout() const
    {
        return mConvolutionLayout;
    }
    void setConvolutionLayout(ConvolutionLayout layout)
    {
        mConvolutionLayout = layout;
    }
    CpuKernels cpuKernels() const
    {
        return mCpuKernels;
    }
    void setCpuKernels(CpuKernels kernels)
    {
        mCpuKernels = kernels;
    }

private:
    nvinfer1::BuilderFlags mFlags{0};
    std::vector<ProfileShapes> mProfiles;
    nvinfer1::IInt8Calibrator* mCalibrator{nullptr};
    nvinfer1::IOptimizationProfile const* mCalibrationProfile{nullptr};
    ProfileShapes mCalibrationShapes;
    std::array<std::size_t, 6> mPoolLimits{};
    nvinfer1::IProgressMonitor* mMonitor{nullptr};
    int32_t mOptimizationLevel{3};
    Backend mBackend{Backend::kDEFAULT};
    ConvolutionLayout mConvolutionLayout{ConvolutionLayout::kBY_TIMING};
    CpuKernels mCpuKernels{CpuKernels::kFAST};
    backend::TimingCache* mTimingCache{nullptr};
    int32_t mAvgTimingIterations{1};
    cudaStream_t mProfileStream{nullptr};
    nvinfer1::ProfilingVerbosity mProfilingVerbosity{nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY};
    nvinfer1::QuantizationFlags mQuantizationFlags{0};
    nvinfer1::TacticSources mTacticSources{0};
    uint32_t mPreviewFeatures{0};
    std::vector<std::string> mPluginsToSerialize;
    int32_t mMaxAuxStreams{-1};
    int32_t mMaxNbTactics{-1};
    int64_t mL2LimitForTiling{-1};
};

} // namespace kiln::builder
