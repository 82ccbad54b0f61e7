// IPluginRegistry::loadLibrary / deregisterLibrary: plugin shared libraries.
#include "plugin/registry.h"

#include "core/logging.h"
#include "plugin/library_load_context.h"
#include "plugin/library_loader.h"
#include "plugin/user_exception.h"

#include <cstdio>
#include <set>
#include <utility>

namespace kiln::plugin
{
namespace
{

using nvinfer1::ErrorCode;

std::string describeHandle(void const* handle)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%p", handle);
    return buffer;
}

// The entry points of a plugin library (TensorRT 10, TensorRT 8.6, and the logger hook).
using GetCreatorsFunction = nvinfer1::IPluginCreatorInterface* const* (*) (int32_t&);
using GetPluginCreatorsFunction = nvinfer1::IPluginCreator* const* (*) (int32_t&);
using SetLoggerFinderFunction = void (*)(nvinfer1::ILoggerFinder*);
using InitLibraryFunction = bool (*)(void*, char const*);

//! A library whose only entry point is initLibNvInferPlugins (libnvinfer_plugin's shape, and Kiln's own
//! libkiln_plugins without its getCreators) registers its creators when that is called, so loadLibrary calls it as an
//! application would, with the empty namespace. No logger is passed: the library would keep it past its lifetime.
void runInitEntryPoint(void* handle, std::string const& where)
{
    if (findSymbol(handle, "getCreators") != nullptr || findSymbol(handle, "getPluginCreators") != nullptr)
    {
        return;
    }
    auto const init = reinterpret_cast<InitLibraryFunction>(findSymbol(handle, "initLibNvInferPlugins"));
    if (init == nullptr)
    {
        return;
    }
    logVerbose(where + ": the library has no getCreators; calling its initLibNvInferPlugins(nullptr, \"\")");
    if (!init(nullptr, ""))
    {
        logWarning(where + ": the library's initLibNvInferPlugins returned false");
    }
}

//! Calls whichever entry point the library has for its creators; what went wrong, or "" when nothing did.
std::string listCreators(GetCreatorsFunction getCreators, GetPluginCreatorsFunction getPluginCreators,
    char const* entryPoint, std::vector<nvinfer1::IPluginCreatorInterface*>& creators)
{
    int32_t count = 0;
    try
    {
        if (getCreators != nullptr)
        {
            nvinfer1::IPluginCreatorInterface* const* const list = getCreators(count);
            if (list != nullptr && count > 0)
            {
                creators.assign(list, list + count);
            }
        }
        else
        {
            nvinfer1::IPluginCreator* const* const list = getPluginCreators(count);
            if (list != nullptr && count > 0)
            {
                creators.assign(list, list + count);
            }
        }
    }
    catch (...)
    {
        return std::string("the library's ") + entryPoint + " " + describeCurrentException();
    }
    if (count < 0 || (count > 0 && creators.empty()))
    {
        return std::string("the library's ") + entryPoint + " returned "
            + (count < 0 ? "a negative count" : "a null list") + " (nbCreators = " + std::to_string(count) + ")";
    }
    return {};
}

} // namespace

PluginRegistry::PluginLibraryHandle PluginRegistry::loadLibrary(char const* pluginPath) noexcept
{
    if (pluginPath == nullptr || pluginPath[0] == '\0')
    {
        reportError(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::loadLibrary: the library path is null or empty");
        return nullptr;
    }
    std::string const where = "IPluginRegistry::loadLibrary(\"" + std::string(pluginPath) + "\")";
    try
    {
        LibraryLoadContext context(this);
        std::string libraryPath;
        void* const handle = openPluginLibrary(pluginPath, where, context, libraryPath);
        if (handle == nullptr)
        {
            return nullptr;
        }
        std::vector<ExportedCreator> exported;
        std::string reason;
        if (!registerLibrary(handle, pluginPath, libraryPath, where, context, exported, reason))
        {
            undoRegistrations(context.registered);
            // An empty reason was reported where it was found.
            if (!reason.empty())
            {
                reportError(ErrorCode::kFAILED_INITIALIZATION, where + ": " + reason);
            }
            closeLibrary(handle, libraryPath);
            return nullptr;
        }
        logVerbose(where + ": registered " + std::to_string(exported.size() + context.registered.size())
            + " plugin creator(s) from " + libraryPath);
        return handle;
    }
    catch (...)
    {
        reportError(ErrorCode::kINTERNAL_ERROR, where + ": " + describeCurrentException());
        return nullptr;
    }
}

void* PluginRegistry::openPluginLibrary(
    char const* pluginPath, std::string const& where, LibraryLoadContext& context, std::string& libraryPath)
{
    // The library's static initialisers run on this thread, inside dlopen, and call
    // registerCreator (or its initLibNvInferPlugins does, just after): the context tells those registrations apart
    // from other threads'.
    std::string openError;
    void* handle = nullptr;
    {
        LibraryLoadContext::Scope const loading(context);
        handle = openLibrary(pluginPath, openError);
        if (handle != nullptr)
        {
            runInitEntryPoint(handle, where);
        }
    }
    if (handle == nullptr)
    {
        undoRegistrations(context.registered);
        reportError(ErrorCode::kFAILED_INITIALIZATION, where + ": cannot open the library: " + openError);
        return nullptr;
    }
    libraryPath = pathOfLibrary(handle);
    if (libraryPath.empty())
    {
        libraryPath = pluginPath;
    }
    return handle;
}

bool PluginRegistry::registerLibrary(void* handle, char const* pluginPath, std::string const& libraryPath,
    std::string const& where, LibraryLoadContext const& context, std::vector<ExportedCreator>& exported,
    std::string& reason)
{
    std::vector<CreatorKey> alreadyRegistered;
    reason = whyLoadedBefore(handle, libraryPath, alreadyRegistered);
    if (reason.empty() && !context.duplicates.empty())
    {
        reason = "the library's static initialisers registered plugin creators that are already registered: "
            + describeKeys(context.duplicates) + "; the library was not loaded";
    }
    if (!reason.empty())
    {
        return false;
    }

    handOverLoggerFinder(handle, where);

    bool hasEntryPoint = false;
    if (!collectExportedCreators(handle, where, hasEntryPoint, exported))
    {
        return false;
    }
    if (!hasEntryPoint && context.registered.empty())
    {
        reason = alreadyRegistered.empty()
            ? std::string(pluginPath)
                + " is not a plugin library: it exports neither getCreators nor getPluginCreators and "
                  "registered no creator when loaded"
            : "the library was already loaded outside loadLibrary and its plugin creators are already registered: "
                + describeKeys(alreadyRegistered);
        return false;
    }

    std::vector<CreatorKey> const duplicates
        = registerExportedCreators(handle, pluginPath, libraryPath, exported, context.registered);
    if (!duplicates.empty())
    {
        reason = "plugin creators exported by the library are already registered: " + describeKeys(duplicates)
            + "; the library was not loaded";
        return false;
    }
    return true;
}

std::string PluginRegistry::whyLoadedBefore(
    void* handle, std::string const& libraryPath, std::vector<CreatorKey>& alreadyRegistered) const
{
    // dlopen of a library that is already open only counts a reference: its
    // initialisers do not run again and its creators are the ones registered before.
    std::string firstRequestedPath;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (auto const loaded = mLibraries.find(handle); loaded != mLibraries.end())
        {
            firstRequestedPath = loaded->second.requestedPath;
        }
        for (auto const& [key, registration] : mRegistrations)
        {
            if (registration.libraryPath == libraryPath)
            {
                alreadyRegistered.push_back(key);
            }
        }
    }
    if (firstRequestedPath.empty())
    {
        return {};
    }
    return "the library " + libraryPath + " is already loaded (by loadLibrary(\"" + firstRequestedPath
        + "\")) and its plugin creators are already registered: " + describeKeys(alreadyRegistered)
        + ". Call deregisterLibrary on the first handle before loading it again";
}

std::vector<CreatorKey> PluginRegistry::registerExportedCreators(void* handle, char const* pluginPath,
    std::string const& libraryPath, std::vector<ExportedCreator> const& exported,
    std::vector<std::pair<CreatorKey, nvinfer1::IPluginCreatorInterface*>> const& registeredWhileOpening)
{
    // Register the exported creators all at once, or none of them.
    std::vector<CreatorKey> duplicates;
    std::lock_guard<std::mutex> lock(mMutex);
    std::set<CreatorKey> inThisLibrary;
    for (ExportedCreator const& entry : exported)
    {
        if (mRegistrations.count(entry.identity.key) != 0 || !inThisLibrary.insert(entry.identity.key).second)
        {
            duplicates.push_back(entry.identity.key);
        }
    }
    if (!duplicates.empty())
    {
        return duplicates;
    }
    for (ExportedCreator const& entry : exported)
    {
        mRegistrations.emplace(
            entry.identity.key, Registration{entry.creator, entry.identity.kind, libraryPath, handle, mNextSequence++});
    }
    for (auto const& [key, creator] : registeredWhileOpening)
    {
        auto const found = mRegistrations.find(key);
        if (found != mRegistrations.end() && found->second.creator == creator)
        {
            found->second.library = handle;
        }
    }
    mLibraries.emplace(handle, LoadedLibrary{libraryPath, pluginPath});
    rebuildListsLocked();
    return duplicates;
}

void PluginRegistry::handOverLoggerFinder(void* handle, std::string const& where) noexcept
{
    auto const setLoggerFinder = reinterpret_cast<SetLoggerFinderFunction>(findSymbol(handle, "setLoggerFinder"));
    if (setLoggerFinder == nullptr)
    {
        return;
    }
    try
    {
        setLoggerFinder(kilnLoggerFinder());
    }
    catch (...)
    {
        // The library can still work; it only cannot log through the application's logger.
        logWarning(where + ": the library's setLoggerFinder() " + describeCurrentException());
    }
}

bool PluginRegistry::collectExportedCreators(
    void* handle, std::string const& where, bool& hasEntryPoint, std::vector<ExportedCreator>& exported) noexcept
{
    auto const getCreators = reinterpret_cast<GetCreatorsFunction>(findSymbol(handle, "getCreators"));
    auto const getPluginCreators = reinterpret_cast<GetPluginCreatorsFunction>(findSymbol(handle, "getPluginCreators"));
    hasEntryPoint = getCreators != nullptr || getPluginCreators != nullptr;
    if (!hasEntryPoint)
    {
        return true;
    }
    char const* const entryPoint = getCreators != nullptr ? "getCreators()" : "getPluginCreators()";
    std::vector<nvinfer1::IPluginCreatorInterface*> creators;
    std::string const listError = listCreators(getCreators, getPluginCreators, entryPoint, creators);
    if (!listError.empty())
    {
        reportError(ErrorCode::kFAILED_INITIALIZATION, where + ": " + listError);
        return false;
    }
    for (std::size_t i = 0; i < creators.size(); ++i)
    {
        std::string const which = where + ": creator " + std::to_string(i) + " of the library's " + entryPoint;
        if (creators[i] == nullptr)
        {
            reportError(ErrorCode::kFAILED_INITIALIZATION, which + " is null");
            return false;
        }
        ExportedCreator entry;
        entry.creator = creators[i];
        CreatorKind kind{};
        std::string error;
        // getPluginCreators hands out IPluginCreator pointers: those are V2 whatever they report.
        if (getCreators != nullptr && !readCreatorKind(*entry.creator, kind, error))
        {
            reportError(ErrorCode::kFAILED_INITIALIZATION, which + ": " + error);
            return false;
        }
        if (getCreators == nullptr)
        {
            kind = CreatorKind::kV2;
        }
        if (!readCreatorIdentity(*entry.creator, kind, entry.identity, error))
        {
            reportError(ErrorCode::kFAILED_INITIALIZATION, which + ": " + error);
            return false;
        }
        exported.push_back(std::move(entry));
    }
    return true;
}

void PluginRegistry::deregisterLibrary(PluginLibraryHandle handle) noexcept
{
    try
    {
        std::string path;
        std::size_t removed = 0;
        bool known = false;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            auto const loaded = mLibraries.find(handle);
            known = loaded != mLibraries.end();
            if (known)
            {
                path = loaded->second.path;
                mLibraries.erase(loaded);
                removed = std::erase_if(
                    mRegistrations, [handle](auto const& entry) { return entry.second.library == handle; });
                rebuildListsLocked();
            }
        }
        if (!known)
        {
            reportError(ErrorCode::kINVALID_ARGUMENT,
                "IPluginRegistry::deregisterLibrary: handle " + describeHandle(handle)
                    + " was not returned by loadLibrary (or was already deregistered); nothing was changed");
            return;
        }
        closeLibrary(handle, path);
        logVerbose("IPluginRegistry::deregisterLibrary: deregistered " + std::to_string(removed)
            + " plugin creator(s) and closed " + path);
    }
    catch (...)
    {
        reportError(ErrorCode::kINTERNAL_ERROR, "IPluginRegistry::deregisterLibrary: " + describeCurrentException());
    }
}

} // namespace kiln::plugin
