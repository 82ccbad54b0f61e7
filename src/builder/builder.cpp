#include "builder/builder.h"

#include "builder/build_plan.h"
#include "builder/builder_config.h"
#include "builder/optimization_profile.h"
#include "core/logging.h"
#include "network/network.h"

#include <kiln/Logging.h>

#include <new>

namespace kiln::builder
{

Builder::Builder(nvinfer1::ILogger& logger)
    : mLogger(logger)
    , mLoggerLease(logger)
{
}

bool Builder::platformHasFastFp16() const noexcept
{
    return false; // true once the CUDA backend exists and a GPU with fast FP16 is present
}

nvinfer1::IBuilderConfig* Builder::createBuilderConfig() noexcept
{
    return new (std::nothrow) BuilderConfig();
}

nvinfer1::INetworkDefinition* Builder::createNetworkV2(nvinfer1::NetworkDefinitionCreationFlags flags) noexcept
{
    return new (std::nothrow) network::Network(*this, flags);
}

nvinfer1::IOptimizationProfile* Builder::createOptimizationProfile() noexcept
{
    // As in TensorRT, the builder owns the profiles it creates.
    try
    {
        mProfiles.push_back(std::make_unique<OptimizationProfile>());
        return mProfiles.back().get();
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IHostMemory* Builder::buildSerializedNetwork(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept
{
    auto* ours = dynamic_cast<network::Network*>(&network);
    auto* ourConfig = dynamic_cast<BuilderConfig*>(&config);
    if (ours == nullptr || ourConfig == nullptr)
    {
        logError("IBuilder::buildSerializedNetwork: the network or configuration was not made by this builder");
        return nullptr;
    }
    try
    {
        return buildPlan(*ours, *ourConfig, mAllocator).release();
    }
    catch (std::exception const& e)
    {
        logError(std::string("IBuilder::buildSerializedNetwork: internal error: ") + e.what());
        return nullptr;
    }
}

bool Builder::isNetworkSupported(
    nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const noexcept
{
    auto const* ours = dynamic_cast<network::Network const*>(&network);
    auto const* ourConfig = dynamic_cast<BuilderConfig const*>(&config);
    if (ours == nullptr || ourConfig == nullptr)
    {
        return false;
    }
    // As a build would infer it: what the application could still have set after adding a layer must be set now.
    network::NetworkFacts facts;
    std::string error;
    if (!ours->inferAll(facts, error, network::InferencePhase::kBUILDING))
    {
        logError("IBuilder::isNetworkSupported: " + error);
        return false;
    }
    return true;
}

bool Builder::setMaxThreads(int32_t maxThreads) noexcept
{
    if (maxThreads < 1)
    {
        return false;
    }
    mMaxThreads = maxThreads;
    return true;
}

nvinfer1::IPluginRegistry& Builder::getPluginRegistry() noexcept
{
    return *::getPluginRegistry();
}

} // namespace kiln::builder

extern "C" void* createInferBuilder_INTERNAL(void* logger, int32_t version) noexcept
{
    if (logger == nullptr)
    {
        kiln::logError("createInferBuilder: the logger is null");
        return nullptr;
    }
    if (version / 10000 != NV_TENSORRT_MAJOR)
    {
        kiln::logError("createInferBuilder: headers of API version " + std::to_string(version)
            + " do not match the library (" + std::to_string(NV_TENSORRT_VERSION) + ")");
        return nullptr;
    }
    auto* iLogger = static_cast<nvinfer1::ILogger*>(logger);
    return static_cast<nvinfer1::IBuilder*>(new (std::nothrow) kiln::builder::Builder(*iLogger));
}
