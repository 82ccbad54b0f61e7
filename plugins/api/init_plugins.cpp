// The entry points of libkiln_plugins, the counterpart of TensorRT's libnvinfer_plugin:
// - initLibNvInferPlugins(logger, namespace) registers the collection under a namespace;
// - getCreators / getPluginCreators hand the collection (empty namespace) to IPluginRegistry::loadLibrary.
// A creator that something else registered first (NVIDIA's own plugin library built against Kiln's headers, say) is
// left in place: Kiln's is skipped and the log says so, so the two libraries never clash.
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

struct CreatorName
{
    std::string name;
    std::string version;
};

CreatorName nameOf(nvinfer1::IPluginCreatorInterface& creator)
{
    if (auto* v2 = dynamic_cast<nvinfer1::IPluginCreator*>(&creator))
    {
        return {v2->getPluginName(), v2->getPluginVersion()};
    }
    if (auto* v3 = dynamic_cast<nvinfer1::IPluginCreatorV3One*>(&creator))
    {
        return {v3->getPluginName(), v3->getPluginVersion()};
    }
    return {"?", "?"};
}

//! Whether a creator is registered under name, version and namespace; getCreator would log an error where none is.
bool isRegistered(nvinfer1::IPluginRegistry& registry, CreatorName const& name, std::string const& ns)
{
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* all = registry.getAllCreators(&count);
    for (int32_t i = 0; i < count; ++i)
    {
        CreatorName const other = nameOf(*all[i]);
        char const* otherNamespace = "";
        if (auto* v2 = dynamic_cast<nvinfer1::IPluginCreator*>(all[i]))
        {
            otherNamespace = v2->getPluginNamespace();
        }
        else if (auto* v3 = dynamic_cast<nvinfer1::IPluginCreatorV3One*>(all[i]))
        {
            otherNamespace = v3->getPluginNamespace();
        }
        if (other.name == name.name && other.version == name.version && ns == otherNamespace)
        {
            return true;
        }
    }
    return false;
}

bool registerWith(
    nvinfer1::IPluginRegistry& registry, nvinfer1::IPluginCreatorInterface& creator, std::string const& ns)
{
    if (auto* v2 = dynamic_cast<nvinfer1::IPluginCreator*>(&creator))
    {
        return registry.registerCreator(*v2, ns.c_str());
    }
    return registry.registerCreator(creator, ns.c_str());
}

//! The collection's creators in the empty namespace, made once for getCreators and getPluginCreators.
std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>> const& exportedCreators()
{
    static std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>> const creators = [] {
        std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>> made;
        for (auto const& makeCreator : kiln::plugins::collection())
        {
            made.push_back(makeCreator(""));
        }
        return made;
    }();
    return creators;
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

    nvinfer1::IPluginRegistry& registry = *getPluginRegistry();
    for (auto const& makeCreator : kiln::plugins::collection())
    {
        std::unique_ptr<nvinfer1::IPluginCreatorInterface> creator = makeCreator(ns);
        CreatorName const name = nameOf(*creator);
        std::string const id = ns + "::" + name.name + " version " + name.version;
        if (registered.count(id) != 0)
        {
            continue; // this call was made before: Kiln's creator is in place
        }
        if (isRegistered(registry, name, ns))
        {
            logTo(log, nvinfer1::ILogger::Severity::kINFO,
                "Plugin creator " + id + " is already registered by another library; Kiln's own is not registered");
            continue;
        }
        bool const ok = registerWith(registry, *creator, ns);
        logTo(log, ok ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kERROR,
            (ok ? "Registered plugin creator - " : "Could not register plugin creator - ") + id);
        if (ok)
        {
            registered.insert(id);
            creators.push_back(std::move(creator));
        }
    }
    return true;
}

extern "C" TENSORRTAPI nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    static std::vector<nvinfer1::IPluginCreatorInterface*> const list = [] {
        std::vector<nvinfer1::IPluginCreatorInterface*> all;
        for (auto const& creator : exportedCreators())
        {
            all.push_back(creator.get());
        }
        return all;
    }();
    nbCreators = static_cast<int32_t>(list.size());
    return list.data();
}

extern "C" TENSORRTAPI nvinfer1::IPluginCreator* const* getPluginCreators(int32_t& nbCreators)
{
    // The V2 creators only: getPluginCreators predates IPluginV3.
    static std::vector<nvinfer1::IPluginCreator*> const list = [] {
        std::vector<nvinfer1::IPluginCreator*> v2;
        for (auto const& creator : exportedCreators())
        {
            if (auto* asV2 = dynamic_cast<nvinfer1::IPluginCreator*>(creator.get()))
            {
                v2.push_back(asV2);
            }
        }
        return v2;
    }();
    nbCreators = static_cast<int32_t>(list.size());
    return list.data();
}
