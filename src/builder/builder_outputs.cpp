// IBuilder's other ways to hand out a plan: loaded as an engine (buildEngineWithConfig) or written to the
// application's stream (buildSerializedNetworkToStream). Both build exactly what buildSerializedNetwork builds.
#include "builder/builder.h"

#include "core/logging.h"

#include <filesystem>
#include <memory>
#include <string>

namespace kiln::builder
{

nvinfer1::ICudaEngine* Builder::buildEngineWithConfig(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept
{
    std::unique_ptr<nvinfer1::IHostMemory> plan{buildSerializedNetwork(network, config)};
    if (plan == nullptr)
    {
        return nullptr; // buildSerializedNetwork said why
    }
    // The engine takes this builder's allocator, as TensorRT's builder passes its allocator to the engines it makes.
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    if (runtime == nullptr)
    {
        logError("IBuilder::buildEngineWithConfig: no runtime could be created to load the plan");
        return nullptr;
    }
    runtime->setGpuAllocator(mAllocator);
    runtime->setErrorRecorder(mRecorder);
    return runtime->deserializeCudaEngine(plan->data(), plan->size());
}

bool Builder::buildSerializedNetworkToStream(
    nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config, nvinfer1::IStreamWriter& writer) noexcept
{
    std::unique_ptr<nvinfer1::IHostMemory> plan{buildSerializedNetwork(network, config)};
    if (plan == nullptr)
    {
        return false;
    }
    auto const size = static_cast<int64_t>(plan->size());
    int64_t written = -1;
    try
    {
        written = writer.write(plan->data(), size);
    }
    catch (std::exception const& e)
    {
        logError(std::string("IBuilder::buildSerializedNetworkToStream: the stream writer threw: ") + e.what());
        return false;
    }
    catch (...)
    {
        logError("IBuilder::buildSerializedNetworkToStream: the stream writer threw");
        return false;
    }
    if (written != size)
    {
        logError("IBuilder::buildSerializedNetworkToStream: the stream writer took " + std::to_string(written)
            + " of the plan's " + std::to_string(size) + " bytes");
        return false;
    }
    return true;
}

} // namespace kiln::builder

extern "C" nvinfer1::safe::IPluginRegistry* getBuilderSafePluginRegistry(nvinfer1::EngineCapability capability) noexcept
{
    if (capability == nvinfer1::EngineCapability::kSAFETY)
    {
        kiln::logError("getBuilderSafePluginRegistry: Kiln builds no safety engines, so it has no safety plugin "
                       "registry");
    }
    return nullptr;
}

extern "C" nvinfer1::IPluginRegistry* getBuilderPluginRegistry(nvinfer1::EngineCapability capability) noexcept
{
    if (capability != nvinfer1::EngineCapability::kSTANDARD)
    {
        return nullptr; // Kiln builds no safety or DLA-standalone engines, so it has no registry for them
    }
    return getPluginRegistry();
}

extern "C" bool setInternalLibraryPath(nvinfer1::AsciiChar const* path) noexcept
{
    if (path == nullptr)
    {
        kiln::logError("setInternalLibraryPath: the path is null");
        return false;
    }
    std::error_code error;
    if (*path != '\0' && !std::filesystem::is_directory(path, error))
    {
        kiln::logError(std::string("setInternalLibraryPath: \"") + path + "\" is not a directory");
        return false;
    }
    // Kiln loads no internal libraries when it builds: a valid path is accepted and not used.
    return true;
}
