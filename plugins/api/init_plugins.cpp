// initLibNvInferPlugins: registers Kiln's plugin collection under a namespace.
#include <NvInferPlugin.h>
#include <kiln/Logging.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin_collection.h"

namespace
{

void logTo(nvinfer1::ILogger* logger, nvinfer1::ILogger::Severity severity, std::string const& msg)
{
    if (logger != nullptr)
    {
        logger->log(severity, msg.c_str());
    }
}

std::string describe(nvinfer1::IPluginCreatorInterface& creator, std::string const& libNamespace)
{
    std::string name = "?";
    std::string version = "?";
    if (auto* v2 = dynamic_cast<nvinfer1::IPluginCreator*>(&creator))
    {
        name = v2->getPluginName();
        version = v2->getPluginVersion();
    }
    else if (auto* v3 = dynamic_cast<nvinfer1::IPluginCreatorV3One*>(&creator))
    {
        name = v3->getPluginName();
        version = v3->getPluginVersion();
    }
    return libNamespace + "::" + name + " version " + version;
}

} // namespace

extern "C" bool initLibNvInferPlugins(void* logger, char const* libNamespace)
{
    auto* log = static_cast<nvinfer1::ILogger*>(logger);
    if (log != nullptr)
    {
        kiln::setLogger(log);
    }
    std::string const ns = libNamespace != nullptr ? libNamespace : "";

    // Creators live until the process ends: the registry holds pointers to them.
    static std::mutex mutex;
    static std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>> creators;
    static std::set<std::string> registered;
    std::lock_guard<std::mutex> lock(mutex);

    for (auto const& makeCreator : kiln::plugins::collection())
    {
        std::unique_ptr<nvinfer1::IPluginCreatorInterface> creator = makeCreator(ns);
        std::string const id = describe(*creator, ns);
        if (!registered.insert(id).second)
        {
            logTo(log, nvinfer1::ILogger::Severity::kVERBOSE, "Plugin creator already registered - " + id);
            continue;
        }
        bool ok = false;
        if (auto* v2 = dynamic_cast<nvinfer1::IPluginCreator*>(creator.get()))
        {
            ok = getPluginRegistry()->registerCreator(*v2, ns.c_str());
        }
        else
        {
            ok = getPluginRegistry()->registerCreator(*creator, ns.c_str());
        }
        logTo(log, ok ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kERROR,
            (ok ? "Registered plugin creator - " : "Could not register plugin creator - ") + id);
        creators.push_back(std::move(creator));
    }
    return true;
}
