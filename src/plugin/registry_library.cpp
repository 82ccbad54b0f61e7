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

} // namespace

nvinfer1::PluginLibraryHandle PluginRegistry::loadLibrary(char const* pluginPath) noexcept
{
    if (pluginPath == nullptr || pluginPath[0] == '\0')
    {
        reportError(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::loadLibrary: the library path is null or empty");
        return nullptr;
    }
    std::string const where = "IPluginRegistry::loadLibrary(\"" + std::string(pluginPath) + "\")";
    try
    {
        // The library's static initialisers run on this thread, inside dlopen, and call
        // registerCreator: the context tells those registrations apart from other threads'.
        LibraryLoadContext context(this);
        std::string openError;
        void* handle = nullptr;
        {
            LibraryLoadContext::Scope const loading(context);
            handle = openLibrary(pluginPath, openError);
        }

        if (handle == nullptr)
        {
            undoRegistrations(context.registered);
            reportError(ErrorCode::kFAILED_INITIALIZATION, where + ": cannot open the library: " + openError);
            return nullptr;
        }
        std::string libraryPath = pathOfLibrary(handle);
        if (libraryPath.empty())
        {
            libraryPath = pluginPath;
        }
        auto const fail = [&](ErrorCode code, std::string const& reason) {
            undoRegistrations(context.registered);
            reportError(code, where + ": " + reason);
            closeLibrary(handle, libraryPath);
            return nullptr;
        };

        // dlopen of a library that is already open only counts a reference: its
        // initialisers do not run again and its creators are the ones registered before.
        std::vector<CreatorKey> alreadyRegistered;
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
        if (!firstRequestedPath.empty())
        {
            return fail(ErrorCode::kFAILED_INITIALIZATION,
                "the library " + libraryPath + " is already loaded (by loadLibrary(\"" + firstRequestedPath
                    + "\")) and its plugin creators are already registered: " + describeKeys(alreadyRegistered)
                    + ". Call deregisterLibrary on the first handle before loading it again");
        }
        if (!context.duplicates.empty())
        {
            return fail(ErrorCode::kFAILED_INITIALIZATION,
                "the library's static initialisers registered plugin creators that are already registered: "
                    + describeKeys(context.duplicates) + "; the library was not loaded");
        }

        handOverLoggerFinder(handle, where);

        bool hasEntryPoint = false;
        std::vector<ExportedCreator> exported;
        if (!collectExportedCreators(handle, where, hasEntryPoint, exported))
        {
            undoRegistrations(context.registered);
            closeLibrary(handle, libraryPath);
            return nullptr;
        }
        if (!hasEntryPoint && context.registered.empty())
        {
            if (!alreadyRegistered.empty())
            {
                return fail(ErrorCode::kFAILED_INITIALIZATION,
                    "the library was already loaded outside loadLibrary and its plugin creators are already "
                    "registered: "
                        + describeKeys(alreadyRegistered));
            }
            return fail(ErrorCode::kFAILED_INITIALIZATION,
                std::string(pluginPath)
                    + " is not a plugin library: it exports neither getCreators nor getPluginCreators and "
                      "registered no creator when loaded");
        }

        // Register the exported creators all at once, or none of them.
        std::vector<CreatorKey> duplicates;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            std::set<CreatorKey> inThisLibrary;
            for (ExportedCreator const& entry : exported)
            {
                if (mRegistrations.count(entry.identity.key) != 0 || !inThisLibrary.insert(entry.identity.key).second)
                {
                    duplicates.push_back(entry.identity.key);
                }
            }
            if (duplicates.empty())
            {
                for (ExportedCreator const& entry : exported)
                {
                    mRegistrations.emplace(entry.identity.key,
                        Registration{entry.creator, entry.identity.kind, libraryPath, handle, mNextSequence++});
                }
                for (auto const& [key, creator] : context.registered)
                {
                    auto const found = mRegistrations.find(key);
                    if (found != mRegistrations.end() && found->second.creator == creator)
                    {
                        found->second.library = handle;
                    }
                }
                mLibraries.emplace(handle, LoadedLibrary{libraryPath, pluginPath});
                rebuildListsLocked();
            }
        }
        if (!duplicates.empty())
        {
            return fail(ErrorCode::kFAILED_INITIALIZATION,
                "plugin creators exported by the library are already registered: " + describeKeys(duplicates)
                    + "; the library was not loaded");
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

bool PluginRegistry::collectExportedCreators(void* handle, std::string const& where, bool& hasEntryPoint,
    std::vector<ExportedCreator>& exported) noexcept
{
    auto const getCreators = reinterpret_cast<GetCreatorsFunction>(findSymbol(handle, "getCreators"));
    auto const getPluginCreators
        = reinterpret_cast<GetPluginCreatorsFunction>(findSymbol(handle, "getPluginCreators"));
    hasEntryPoint = getCreators != nullptr || getPluginCreators != nullptr;
    if (!hasEntryPoint)
    {
        return true;
    }
    char const* const entryPoint = getCreators != nullptr ? "getCreators()" : "getPluginCreators()";
    int32_t count = 0;
    std::vector<nvinfer1::IPluginCreatorInterface*> creators;
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
        reportError(ErrorCode::kFAILED_INITIALIZATION,
            where + ": the library's " + entryPoint + " " + describeCurrentException());
        return false;
    }
    if (count < 0 || (count > 0 && creators.empty()))
    {
        reportError(ErrorCode::kFAILED_INITIALIZATION,
            where + ": the library's " + entryPoint + " returned " + (count < 0 ? "a negative count" : "a null list")
                + " (nbCreators = " + std::to_string(count) + ")");
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

void PluginRegistry::deregisterLibrary(nvinfer1::PluginLibraryHandle handle) noexcept
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
