// IBuilderConfig's options beyond what Kiln's builder uses: stored and given back, or refused with one error that
// names the call and why (docs/api-coverage.md lists them).
#include "builder/builder_config.h"

#include "core/logging.h"

#include <set>
#include <string>

namespace kiln::builder
{

namespace
{

template <typename Enum>
bool isEnumValue(Enum value)
{
    auto const v = static_cast<int32_t>(value);
    return v >= 0 && v < nvinfer1::EnumMax<Enum>();
}

void refuse(char const* call, std::string const& why)
{
    logError(std::string("IBuilderConfig::") + call + ": " + why);
}

} // namespace

nvinfer1::TacticSources defaultTacticSources()
{
    return 1U << static_cast<uint32_t>(nvinfer1::TacticSource::kEDGE_MASK_CONVOLUTIONS)
        | 1U << static_cast<uint32_t>(nvinfer1::TacticSource::kJIT_CONVOLUTIONS);
}

void BuilderConfig::setAvgTimingIterations(int32_t avgTiming) noexcept
{
    if (avgTiming < 1)
    {
        refuse("setAvgTimingIterations", std::to_string(avgTiming) + " is not a positive number of iterations");
        return;
    }
    mAvgTimingIterations = avgTiming;
}

void BuilderConfig::setEngineCapability(nvinfer1::EngineCapability capability) noexcept
{
    if (capability != nvinfer1::EngineCapability::kSTANDARD)
    {
        refuse("setEngineCapability", "Kiln builds kSTANDARD engines only (no safety or DLA-standalone flow)");
    }
}

void BuilderConfig::setAlgorithmSelector(nvinfer1::IAlgorithmSelector* selector) noexcept
{
    if (selector != nullptr)
    {
        refuse("setAlgorithmSelector",
            "Kiln offers its tactic choices to no algorithm selector (TensorRT 10.8 deprecates them); the selector is "
            "not kept and Kiln chooses as it would without one");
    }
}

void BuilderConfig::setDeviceType(nvinfer1::ILayer const* /*layer*/, nvinfer1::DeviceType deviceType) noexcept
{
    if (deviceType != nvinfer1::DeviceType::kGPU)
    {
        refuse("setDeviceType", "Kiln has no DLA; layers run on the GPU (or the host on the CPU backend)");
    }
}

void BuilderConfig::setDLACore(int32_t dlaCore) noexcept
{
    if (dlaCore != -1)
    {
        refuse("setDLACore", "Kiln has no DLA cores");
    }
}

void BuilderConfig::setDefaultDeviceType(nvinfer1::DeviceType deviceType) noexcept
{
    if (deviceType != nvinfer1::DeviceType::kGPU)
    {
        refuse("setDefaultDeviceType", "Kiln has no DLA");
    }
}

void BuilderConfig::setProfilingVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept
{
    if (!isEnumValue(verbosity))
    {
        refuse("setProfilingVerbosity", std::to_string(static_cast<int32_t>(verbosity)) + " is not a verbosity");
        return;
    }
    mProfilingVerbosity = verbosity;
}

bool BuilderConfig::setCalibrationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept
{
    if (profile == nullptr)
    {
        mCalibrationProfile = nullptr;
        return true;
    }
    auto const* ours = dynamic_cast<OptimizationProfile const*>(profile);
    if (ours == nullptr)
    {
        refuse("setCalibrationProfile", "the profile was not made by IBuilder::createOptimizationProfile");
        return false;
    }
    if (std::string const error = ours->shapes().validationError(); !error.empty())
    {
        refuse("setCalibrationProfile", "invalid profile: " + error);
        return false;
    }
    mCalibrationProfile = profile;
    mCalibrationShapes = ours->shapes();
    return true;
}

bool BuilderConfig::setTacticSources(nvinfer1::TacticSources tacticSources) noexcept
{
    if ((tacticSources >> nvinfer1::EnumMax<nvinfer1::TacticSource>()) != 0)
    {
        refuse("setTacticSources", "bits beyond TacticSource's values are set");
        return false;
    }
    mTacticSources = tacticSources;
    return true;
}

void BuilderConfig::setPreviewFeature(nvinfer1::PreviewFeature feature, bool enable) noexcept
{
    if (!isEnumValue(feature))
    {
        refuse("setPreviewFeature", std::to_string(static_cast<int32_t>(feature)) + " is not a PreviewFeature");
        return;
    }
    uint32_t const bit = 1U << static_cast<uint32_t>(feature);
    mPreviewFeatures = enable ? (mPreviewFeatures | bit) : (mPreviewFeatures & ~bit);
}

bool BuilderConfig::getPreviewFeature(nvinfer1::PreviewFeature feature) const noexcept
{
    return isEnumValue(feature) && (mPreviewFeatures & (1U << static_cast<uint32_t>(feature))) != 0;
}

void BuilderConfig::setHardwareCompatibilityLevel(nvinfer1::HardwareCompatibilityLevel level) noexcept
{
    if (level != nvinfer1::HardwareCompatibilityLevel::kNONE)
    {
        refuse("setHardwareCompatibilityLevel", "Kiln builds for the GPU it builds on only (kNONE)");
    }
}

void BuilderConfig::setPluginsToSerialize(char const* const* paths, int32_t nbPaths) noexcept
{
    if (nbPaths < 0 || (nbPaths > 0 && paths == nullptr))
    {
        refuse("setPluginsToSerialize", "the path list is null or its count negative");
        return;
    }
    std::vector<std::string> list;
    std::set<std::string> seen;
    for (int32_t i = 0; i < nbPaths; ++i)
    {
        if (paths[i] == nullptr || !seen.insert(paths[i]).second)
        {
            refuse("setPluginsToSerialize",
                paths[i] == nullptr ? "path " + std::to_string(i) + " is null"
                                    : std::string("'") + paths[i] + "' is listed twice");
            return;
        }
        list.emplace_back(paths[i]);
    }
    mPluginsToSerialize = std::move(list);
}

char const* BuilderConfig::getPluginToSerialize(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbPluginsToSerialize())
    {
        refuse("getPluginToSerialize", "index " + std::to_string(index) + " is out of range");
        return nullptr;
    }
    return mPluginsToSerialize[static_cast<size_t>(index)].c_str();
}

void BuilderConfig::setMaxAuxStreams(int32_t nbStreams) noexcept
{
    if (nbStreams < 0)
    {
        refuse("setMaxAuxStreams", "the number of streams is negative");
        return;
    }
    mMaxAuxStreams = nbStreams;
}

void BuilderConfig::setRuntimePlatform(nvinfer1::RuntimePlatform runtimePlatform) noexcept
{
    if (runtimePlatform != nvinfer1::RuntimePlatform::kSAME_AS_BUILD)
    {
        refuse("setRuntimePlatform", "Kiln builds for the platform it runs on only");
    }
}

bool BuilderConfig::setTilingOptimizationLevel(nvinfer1::TilingOptimizationLevel level) noexcept
{
    if (level == nvinfer1::TilingOptimizationLevel::kNONE)
    {
        return true;
    }
    refuse("setTilingOptimizationLevel",
        isEnumValue(level) ? "Kiln does no tiling optimization; the level stays kNONE"
                           : std::to_string(static_cast<int32_t>(level)) + " is not a tiling optimization level");
    return false;
}

bool BuilderConfig::setL2LimitForTiling(int64_t size) noexcept
{
    if (size < 0)
    {
        refuse("setL2LimitForTiling", std::to_string(size) + " is not a size in bytes");
        return false;
    }
    mL2LimitForTiling = size;
    return true;
}

bool BuilderConfig::setRemoteAutoTuningConfig(char const* config) noexcept
{
    if (config == nullptr)
    {
        return true;
    }
    refuse("setRemoteAutoTuningConfig", "remote auto-tuning serves kSAFETY engines, which Kiln does not build");
    return false;
}

} // namespace kiln::builder
