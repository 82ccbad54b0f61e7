#include "builder/builder_config.h"

#include "backend/choice/backends.h"
#include "core/logging.h"

namespace kiln::builder
{

BuilderConfig::BuilderConfig()
{
    reset();
}

void BuilderConfig::reset() noexcept
{
    mFlags = 0;
    mProfiles.clear();
    mCalibrator = nullptr;
    mCalibrationProfile = nullptr;
    mPoolLimits.fill(0);
    // Like TensorRT, the workspace may use all memory unless limited.
    mPoolLimits[static_cast<size_t>(nvinfer1::MemoryPoolType::kWORKSPACE)] = SIZE_MAX;
    mMonitor = nullptr;
    mOptimizationLevel = 3;
    mBackend = Backend::kDEFAULT;
    mConvolutionLayout = ConvolutionLayout::kBY_TIMING;
    mCpuKernels = CpuKernels::kFAST;
    mTimingCache = nullptr;
    mAvgTimingIterations = 1;
    mProfileStream = nullptr;
    mProfilingVerbosity = nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY;
    mQuantizationFlags = 0;
    mTacticSources = defaultTacticSources();
    // TensorRT turns profile sharing on and it cannot be turned off.
    mPreviewFeatures = 1U << static_cast<uint32_t>(nvinfer1::PreviewFeature::kPROFILE_SHARING_0806);
    mPluginsToSerialize.clear();
    mMaxAuxStreams = -1;
    mMaxNbTactics = -1;
}

int32_t BuilderConfig::addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept
{
    auto const* ours = dynamic_cast<OptimizationProfile const*>(profile);
    if (ours == nullptr)
    {
        logError("IBuilderConfig::addOptimizationProfile: the profile is null or was not made by "
                 "IBuilder::createOptimizationProfile");
        return -1;
    }
    std::string const error = ours->shapes().validationError();
    if (!error.empty())
    {
        logError("IBuilderConfig::addOptimizationProfile: invalid profile: " + error);
        return -1;
    }
    mProfiles.push_back(ours->shapes());
    return static_cast<int32_t>(mProfiles.size()) - 1;
}

void BuilderConfig::setMemoryPoolLimit(nvinfer1::MemoryPoolType pool, std::size_t poolSize) noexcept
{
    auto const index = static_cast<size_t>(pool);
    if (index >= mPoolLimits.size())
    {
        logError("IBuilderConfig::setMemoryPoolLimit: unknown pool " + std::to_string(index));
        return;
    }
    mPoolLimits[index] = poolSize;
}

std::size_t BuilderConfig::getMemoryPoolLimit(nvinfer1::MemoryPoolType pool) const noexcept
{
    auto const index = static_cast<size_t>(pool);
    return index < mPoolLimits.size() ? mPoolLimits[index] : 0;
}

std::string BuilderConfig::timedDevice() const
{
    backend::Implementation const* implementation
        = backend::implementation(mBackend == Backend::kDEFAULT ? defaultBackend() : mBackend);
    return implementation != nullptr ? implementation->deviceIdentity() : std::string();
}

nvinfer1::ITimingCache* BuilderConfig::createTimingCache(void const* blob, std::size_t size) const noexcept
{
    if (size == 0)
    {
        return new backend::TimingCache(timedDevice());
    }
    if (blob == nullptr)
    {
        logError("IBuilderConfig::createTimingCache: the blob is null but its size is " + std::to_string(size));
        return nullptr;
    }
    std::string error;
    std::unique_ptr<backend::TimingCache> cache = backend::TimingCache::parse(blob, size, error);
    if (cache == nullptr)
    {
        logError("IBuilderConfig::createTimingCache: " + error);
    }
    return cache.release();
}

bool BuilderConfig::setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept
{
    auto* ours = dynamic_cast<backend::TimingCache*>(const_cast<nvinfer1::ITimingCache*>(&cache));
    if (ours == nullptr)
    {
        logError("IBuilderConfig::setTimingCache: the cache was not made by IBuilderConfig::createTimingCache");
        return false;
    }
    std::string const device = timedDevice();
    if (!ignoreMismatch && !ours->acceptsTimingsFrom(device))
    {
        logError("IBuilderConfig::setTimingCache: the cache holds timings from another device (" + ours->device()
            + "; this one is " + device + "); pass ignoreMismatch = true to use them anyway");
        return false;
    }
    mTimingCache = ours;
    return true;
}

} // namespace kiln::builder

namespace kiln
{

bool setBackend(nvinfer1::IBuilderConfig& config, Backend backend) noexcept
{
    auto* ours = dynamic_cast<builder::BuilderConfig*>(&config);
    if (ours == nullptr)
    {
        return false;
    }
    ours->setBackend(backend);
    return true;
}

bool setConvolutionLayout(nvinfer1::IBuilderConfig& config, ConvolutionLayout layout) noexcept
{
    auto* ours = dynamic_cast<builder::BuilderConfig*>(&config);
    if (ours == nullptr)
    {
        return false;
    }
    ours->setConvolutionLayout(layout);
    return true;
}

ConvolutionLayout getConvolutionLayout(nvinfer1::IBuilderConfig const& config) noexcept
{
    auto const* ours = dynamic_cast<builder::BuilderConfig const*>(&config);
    return ours ? ours->convolutionLayout() : ConvolutionLayout::kBY_TIMING;
}

bool setCpuKernels(nvinfer1::IBuilderConfig& config, CpuKernels kernels) noexcept
{
    auto* ours = dynamic_cast<builder::BuilderConfig*>(&config);
    if (ours == nullptr)
    {
        return false;
    }
    ours->setCpuKernels(kernels);
    return true;
}

CpuKernels getCpuKernels(nvinfer1::IBuilderConfig const& config) noexcept
{
    auto const* ours = dynamic_cast<builder::BuilderConfig const*>(&config);
    return ours ? ours->cpuKernels() : CpuKernels::kFAST;
}

Backend getBackend(nvinfer1::IBuilderConfig const& config) noexcept
{
    auto const* ours = dynamic_cast<builder::BuilderConfig const*>(&config);
    return ours ? ours->backend() : Backend::kDEFAULT;
}

char const* backendName(Backend backend) noexcept
{
    switch (backend)
    {
    case Backend::kCPU: return "cpu";
    case Backend::kCUDA: return "cuda";
    case Backend::kDEFAULT: return "default";
    }
    return "unknown";
}

} // namespace kiln
