// The creator table: registration, lookup, lists, deregistration; and the error recorder
// and shared resources, which PluginRegistry only forwards.
#include "plugin/registry.h"

#include "core/logging.h"
#include "plugin/closest_names.h"
#include "plugin/library_load_context.h"
#include "plugin/library_loader.h"
#include "plugin/user_exception.h"

#include <algorithm>
#include <utility>

namespace kiln::plugin
{
namespace
{

using nvinfer1::ErrorCode;

std::string quoted(char const* text)
{
    return text == nullptr ? std::string("(null)") : "\"" + std::string(text) + "\"";
}

} // namespace

PluginRegistry::PluginRegistry() = default;

PluginRegistry::~PluginRegistry() noexcept = default;

// ---------------------------------------------------------------------------------------------
// Registration

bool PluginRegistry::registerCreator(nvinfer1::IPluginCreator& creator, char const* const pluginNamespace) noexcept
{
    return registerCreatorOfKind(creator, CreatorKind::kV2, pluginNamespace);
}

bool PluginRegistry::registerCreator(
    nvinfer1::IPluginCreatorInterface& creator, char const* const pluginNamespace) noexcept
{
    CreatorKind kind{};
    std::string error;
    if (!readCreatorKind(creator, kind, error))
    {
        reportError(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::registerCreator: " + error);
        return false;
    }
    return registerCreatorOfKind(creator, kind, pluginNamespace);
}

bool PluginRegistry::registerCreatorOfKind(
    nvinfer1::IPluginCreatorInterface& creator, CreatorKind kind, char const* pluginNamespace) noexcept
{
    try
    {
        CreatorIdentity identity;
        std::string error;
        if (!readCreatorIdentity(creator, kind, identity, error))
        {
            reportError(ErrorCode::kINVALID_ARGUMENT,
                "IPluginRegistry::registerCreator: " + error + "; the creator was not registered");
            return false;
        }
        // The namespace ARGUMENT is the key; the creator's own namespace may differ.
        CreatorKey key{identity.key.name, identity.key.version, pluginNamespace != nullptr ? pluginNamespace : ""};
        std::string libraryPath = libraryHoldingObject(&creator);
        bool inserted = false;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            LibraryLoadContext* const loading = LibraryLoadContext::currentFor(this);
            inserted = mRegistrations.count(key) == 0;
            if (inserted)
            {
                mRegistrations.emplace(
                    key, Registration{&creator, kind, std::move(libraryPath), nullptr, mNextSequence++});
                rebuildListsLocked();
            }
            if (loading != nullptr && inserted)
            {
                loading->registered.emplace_back(key, &creator);
            }
            else if (loading != nullptr)
            {
                loading->duplicates.push_back(key);
            }
        }
        if (!inserted)
        {
            logWarning("IPluginRegistry::registerCreator: a plugin creator " + describeKey(key)
                + " is already registered; this registration was ignored");
            return false;
        }
        if (kind == CreatorKind::kV2 && identity.key.pluginNamespace != key.pluginNamespace)
        {
            // Plugins copy their creator's namespace, and that is what a plan records: make it
            // the namespace the creator is found under.
            logVerbose("IPluginRegistry::registerCreator: plugin creator \"" + key.name + "\" version \"" + key.version
                + "\" reports namespace \"" + identity.key.pluginNamespace + "\"; calling setPluginNamespace(\""
                + key.pluginNamespace + "\") on it");
            try
            {
                static_cast<nvinfer1::IPluginCreator&>(creator).setPluginNamespace(key.pluginNamespace.c_str());
            }
            catch (...)
            {
                std::string const reason = describeCurrentException();
                undoRegistrations({{key, &creator}});
                reportError(ErrorCode::kINVALID_ARGUMENT,
                    "IPluginRegistry::registerCreator: plugin creator " + describeKey(key) + ": setPluginNamespace() "
                        + reason + "; the creator was not registered");
                return false;
            }
        }
        return true;
    }
    catch (...)
    {
        reportError(ErrorCode::kINTERNAL_ERROR, "IPluginRegistry::registerCreator: " + describeCurrentException());
        return false;
    }
}

// ---------------------------------------------------------------------------------------------
// Lookup

nvinfer1::IPluginCreator* PluginRegistry::getPluginCreator(
    char const* const pluginName, char const* const pluginVersion, char const* const pluginNamespace) noexcept
{
    CreatorMatch const match = lookupAndReport(pluginName, pluginVersion, pluginNamespace, "getPluginCreator");
    if (match.creator != nullptr && match.v2 == nullptr)
    {
        reportError(ErrorCode::kINVALID_ARGUMENT,
            "IPluginRegistry::getPluginCreator: plugin creator "
                + describeKey({pluginName, pluginVersion, pluginNamespace != nullptr ? pluginNamespace : ""})
                + " is an IPluginCreatorV3One, and getPluginCreator returns only IPluginCreator (V2) creators; "
                  "use getCreator");
    }
    return match.v2;
}

nvinfer1::IPluginCreatorInterface* PluginRegistry::getCreator(
    char const* const pluginName, char const* const pluginVersion, char const* const pluginNamespace) noexcept
{
    return lookupAndReport(pluginName, pluginVersion, pluginNamespace, "getCreator").creator;
}

CreatorMatch PluginRegistry::lookupAndReport(
    char const* pluginName, char const* pluginVersion, char const* pluginNamespace, char const* method) noexcept
{
    std::string const where = std::string("IPluginRegistry::") + method;
    try
    {
        if (pluginName == nullptr || pluginVersion == nullptr)
        {
            reportError(ErrorCode::kINVALID_ARGUMENT,
                where + ": the plugin name (" + quoted(pluginName) + ") and version (" + quoted(pluginVersion)
                    + ") must not be null");
            return {};
        }
        std::string_view const ns = pluginNamespace != nullptr ? pluginNamespace : "";
        CreatorMatch match = findCreator(pluginName, pluginVersion, ns);
        if (match.creator == nullptr)
        {
            reportError(
                ErrorCode::kINVALID_ARGUMENT, where + ": " + describeMissingCreator(pluginName, pluginVersion, ns));
        }
        return match;
    }
    catch (...)
    {
        reportError(ErrorCode::kINTERNAL_ERROR, where + ": " + describeCurrentException());
        return {};
    }
}

CreatorMatch PluginRegistry::findCreator(
    std::string_view name, std::string_view version, std::string_view pluginNamespace) const
{
    CreatorKey const key{std::string(name), std::string(version), std::string(pluginNamespace)};
    std::lock_guard<std::mutex> lock(mMutex);
    auto const found = mRegistrations.find(key);
    if (found == mRegistrations.end())
    {
        return {};
    }
    Registration const& registration = found->second;
    return CreatorMatch{registration.creator, asV2(registration.creator, registration.kind),
        asV3One(registration.creator, registration.kind), registration.libraryPath};
}

std::string PluginRegistry::closestNames(
    std::string_view name, std::string_view version, std::string_view pluginNamespace) const
{
    CreatorKey const wanted{std::string(name), std::string(version), std::string(pluginNamespace)};
    std::vector<CreatorKey> registered;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        registered = keysLocked();
    }
    return describeClosestKeys(wanted, registered);
}

std::string PluginRegistry::describeMissingCreator(
    std::string_view name, std::string_view version, std::string_view pluginNamespace) const
{
    CreatorKey const wanted{std::string(name), std::string(version), std::string(pluginNamespace)};
    return "no plugin creator " + describeKey(wanted) + " is registered. "
        + closestNames(name, version, pluginNamespace);
}

std::string PluginRegistry::libraryOf(nvinfer1::IPluginCreatorInterface const* creator) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (auto const& [key, registration] : mRegistrations)
    {
        if (registration.creator == creator)
        {
            return registration.libraryPath;
        }
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Lists

nvinfer1::IPluginCreator* const* PluginRegistry::getPluginCreatorList(int32_t* const numCreators) const noexcept
{
    if (numCreators == nullptr)
    {
        reportError(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::getPluginCreatorList: numCreators is null");
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(mMutex);
    *numCreators = static_cast<int32_t>(mV2Creators.size());
    return mV2Creators.empty() ? nullptr : mV2Creators.data();
}

nvinfer1::IPluginCreatorInterface* const* PluginRegistry::getAllCreators(int32_t* const numCreators) const noexcept
{
    if (numCreators == nullptr)
    {
        reportError(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::getAllCreators: numCreators is null");
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(mMutex);
    *numCreators = static_cast<int32_t>(mAllCreators.size());
    return mAllCreators.empty() ? nullptr : mAllCreators.data();
}

nvinfer1::IPluginCreatorInterface* const* PluginRegistry::getAllCreatorsRecursive(int32_t* const numCreators) noexcept
{
    // Kiln has no parent registries: this registry is the whole tree.
    return getAllCreators(numCreators);
}

bool PluginRegistry::isParentSearchEnabled() const
{
    return mParentSearchEnabled.load();
}

void PluginRegistry::setParentSearchEnabled(bool const enabled)
{
    mParentSearchEnabled.store(enabled);
}

std::vector<CreatorKey> PluginRegistry::keysLocked() const
{
    std::vector<std::pair<uint64_t, CreatorKey>> ordered;
    ordered.reserve(mRegistrations.size());
    for (auto const& [key, registration] : mRegistrations)
    {
        ordered.emplace_back(registration.sequence, key);
    }
    std::sort(ordered.begin(), ordered.end(), [](auto const& lhs, auto const& rhs) { return lhs.first < rhs.first; });
    std::vector<CreatorKey> keys;
    keys.reserve(ordered.size());
    for (auto& entry : ordered)
    {
        keys.push_back(std::move(entry.second));
    }
    return keys;
}

void PluginRegistry::rebuildListsLocked()
{
    std::vector<Registration const*> ordered;
    ordered.reserve(mRegistrations.size());
    for (auto const& [key, registration] : mRegistrations)
    {
        ordered.push_back(&registration);
    }
    std::sort(ordered.begin(), ordered.end(),
        [](Registration const* lhs, Registration const* rhs) { return lhs->sequence < rhs->sequence; });
    mAllCreators.clear();
    mV2Creators.clear();
    for (Registration const* registration : ordered)
    {
        mAllCreators.push_back(registration->creator);
        if (nvinfer1::IPluginCreator* const v2 = asV2(registration->creator, registration->kind))
        {
            mV2Creators.push_back(v2);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Deregistration

bool PluginRegistry::deregisterCreator(nvinfer1::IPluginCreator const& creator) noexcept
{
    return deregisterCreatorObject(&creator);
}

bool PluginRegistry::deregisterCreator(nvinfer1::IPluginCreatorInterface const& creator) noexcept
{
    return deregisterCreatorObject(&creator);
}

bool PluginRegistry::deregisterCreatorObject(nvinfer1::IPluginCreatorInterface const* creator) noexcept
{
    try
    {
        // By identity, not by the creator's getters: no user code runs, and a creator
        // registered under several namespaces leaves all of them.
        std::lock_guard<std::mutex> lock(mMutex);
        std::size_t const removed
            = std::erase_if(mRegistrations, [creator](auto const& entry) { return entry.second.creator == creator; });
        if (removed != 0)
        {
            rebuildListsLocked();
        }
        return removed != 0;
    }
    catch (...)
    {
        reportError(ErrorCode::kINTERNAL_ERROR, "IPluginRegistry::deregisterCreator: " + describeCurrentException());
        return false;
    }
}

void PluginRegistry::undoRegistrations(
    std::vector<std::pair<CreatorKey, nvinfer1::IPluginCreatorInterface*>> const& registered)
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (auto const& [key, creator] : registered)
    {
        auto const found = mRegistrations.find(key);
        if (found != mRegistrations.end() && found->second.creator == creator)
        {
            mRegistrations.erase(found);
        }
    }
    rebuildListsLocked();
}

// ---------------------------------------------------------------------------------------------
// Error recorder and resources

void PluginRegistry::setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept
{
    mErrors.setRecorder(recorder);
}

nvinfer1::IErrorRecorder* PluginRegistry::getErrorRecorder() const noexcept
{
    return mErrors.recorder();
}

void PluginRegistry::reportError(nvinfer1::ErrorCode code, std::string const& msg) const noexcept
{
    mErrors.error(code, msg);
}

nvinfer1::IPluginResource* PluginRegistry::acquirePluginResource(
    char const* key, nvinfer1::IPluginResource* resource) noexcept
{
    return mResources.acquire(key, resource);
}

int32_t PluginRegistry::releasePluginResource(char const* key) noexcept
{
    return mResources.release(key);
}

int32_t PluginRegistry::resourceReferenceCount(std::string const& key) const
{
    return mResources.referenceCount(key);
}

} // namespace kiln::plugin
