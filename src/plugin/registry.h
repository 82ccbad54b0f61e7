// Kiln's plugin registry: the object behind getPluginRegistry().
#pragma once

#include "plugin/creator_identity.h"
#include "plugin/creator_key.h"
#include "plugin/error_reporter.h"
#include "plugin/plugin_resources.h"

#include <NvInferRuntime.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::plugin
{

struct LibraryLoadContext;

//! What findCreator found. creator is nullptr when nothing is registered under the key;
//! otherwise exactly one of v2 and v3One is set.
struct CreatorMatch
{
    nvinfer1::IPluginCreatorInterface* creator{nullptr};
    nvinfer1::IPluginCreator* v2{nullptr};
    nvinfer1::IPluginCreatorV3One* v3One{nullptr};
    //! See PluginRegistry::libraryOf.
    std::string library;
};

//! Creators keyed by (name, version, namespace), plugin libraries and shared resources.
//! Every method is thread-safe. The creator table's lock is never held while user code
//! runs (creator getters, library entry points, error recorders), so user code may call
//! back into the registry; a library's static REGISTER_TENSORRT_PLUGIN initialisers do.
class PluginRegistry final : public nvinfer1::IPluginRegistry
{
public:
    PluginRegistry();
    //! Leaves loaded libraries loaded and resources unreleased: at exit their code may be gone.
    ~PluginRegistry() noexcept override;

    // nvinfer1::IPluginRegistry
    bool registerCreator(nvinfer1::IPluginCreator& creator, char const* const pluginNamespace) noexcept override;
    nvinfer1::IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreator* getPluginCreator(char const* const pluginName, char const* const pluginVersion,
        char const* const pluginNamespace = "") noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreator const& creator) noexcept override;
    bool isParentSearchEnabled() const override;
    void setParentSearchEnabled(bool const enabled) override;
    PluginLibraryHandle loadLibrary(char const* pluginPath) noexcept override;
    void deregisterLibrary(PluginLibraryHandle handle) noexcept override;
    bool registerCreator(
        nvinfer1::IPluginCreatorInterface& creator, char const* const pluginNamespace) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreatorInterface* getCreator(char const* const pluginName, char const* const pluginVersion,
        char const* const pluginNamespace = "") noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreatorInterface const& creator) noexcept override;
    nvinfer1::IPluginResource* acquirePluginResource(
        char const* key, nvinfer1::IPluginResource* resource) noexcept override;
    int32_t releasePluginResource(char const* key) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept override;

    // Kiln internals (plan loading, the ONNX parser, the builder).

    //! The creator registered under (name, version, namespace), V2 or V3. Logs nothing when
    //! there is none, so that the caller can write its own message (see describeMissingCreator).
    CreatorMatch findCreator(std::string_view name, std::string_view version, std::string_view pluginNamespace) const;

    //! "Closest registered creators: "A" version "1" namespace "", ..." (same name with another
    //! version or namespace first, then by edit distance of the name), or
    //! "The plugin registry is empty."
    std::string closestNames(std::string_view name, std::string_view version, std::string_view pluginNamespace) const;

    //! The whole message a failed lookup logs: what was asked for, then closestNames().
    std::string describeMissingCreator(
        std::string_view name, std::string_view version, std::string_view pluginNamespace) const;

    //! The shared library that creator came from, as an absolute path: the library given to
    //! loadLibrary, or the one the loader reports holding the creator (libraries the application
    //! dlopen'ed itself). Empty for the main program, for creators built into libkiln, and for
    //! creators that are not registered.
    std::string libraryOf(nvinfer1::IPluginCreatorInterface const* creator) const;

    //! Logs msg as an error and hands it to the error recorder set on this registry.
    void reportError(nvinfer1::ErrorCode code, std::string const& msg) const noexcept;

    //! References held on a shared resource; 0 when key is not registered.
    int32_t resourceReferenceCount(std::string const& key) const;

private:
    struct Registration
    {
        nvinfer1::IPluginCreatorInterface* creator{nullptr};
        CreatorKind kind{CreatorKind::kV2};
        std::string libraryPath;
        //! The loadLibrary handle the creator belongs to; nullptr when not loaded that way.
        PluginLibraryHandle library{nullptr};
        //! Registration order, which the creator lists keep.
        uint64_t sequence{0};
    };

    struct LoadedLibrary
    {
        std::string path;
        std::string requestedPath;
    };

    struct ExportedCreator
    {
        nvinfer1::IPluginCreatorInterface* creator{nullptr};
        CreatorIdentity identity;
    };

    bool registerCreatorOfKind(
        nvinfer1::IPluginCreatorInterface& creator, CreatorKind kind, char const* pluginNamespace) noexcept;
    CreatorMatch lookupAndReport(
        char const* pluginName, char const* pluginVersion, char const* pluginNamespace, char const* method) noexcept;
    bool deregisterCreatorObject(nvinfer1::IPluginCreatorInterface const* creator) noexcept;

    // loadLibrary's steps. openPluginLibrary and collectExportedCreators report their own errors. registerLibrary
    // gives loadLibrary the reason it failed to report, empty when collectExportedCreators reported it; it undoes
    // nothing: loadLibrary rolls back.
    void* openPluginLibrary(
        char const* pluginPath, std::string const& where, LibraryLoadContext& context, std::string& libraryPath);
    bool registerLibrary(void* handle, char const* pluginPath, std::string const& libraryPath, std::string const& where,
        LibraryLoadContext const& context, std::vector<ExportedCreator>& exported, std::string& reason);
    //! Why the library cannot be loaded: it is loaded already by loadLibrary; "" when it is not.
    //! `alreadyRegistered` gets the creators registered from it before, however it was loaded.
    std::string whyLoadedBefore(
        void* handle, std::string const& libraryPath, std::vector<CreatorKey>& alreadyRegistered) const;
    //! Registers all of the creators, or none of them when some are registered already: those are returned.
    std::vector<CreatorKey> registerExportedCreators(void* handle, char const* pluginPath,
        std::string const& libraryPath, std::vector<ExportedCreator> const& exported,
        std::vector<std::pair<CreatorKey, nvinfer1::IPluginCreatorInterface*>> const& registeredWhileOpening);
    bool collectExportedCreators(
        void* handle, std::string const& where, bool& hasEntryPoint, std::vector<ExportedCreator>& exported) noexcept;
    void handOverLoggerFinder(void* handle, std::string const& where) noexcept;
    //! Removes these registrations (those still held by the same creator).
    void undoRegistrations(std::vector<std::pair<CreatorKey, nvinfer1::IPluginCreatorInterface*>> const& registered);

    std::vector<CreatorKey> keysLocked() const;
    void rebuildListsLocked();

    mutable std::mutex mMutex;
    std::map<CreatorKey, Registration> mRegistrations;
    std::vector<nvinfer1::IPluginCreator*> mV2Creators;
    std::vector<nvinfer1::IPluginCreatorInterface*> mAllCreators;
    std::map<PluginLibraryHandle, LoadedLibrary> mLibraries;
    uint64_t mNextSequence{0};
    std::atomic<bool> mParentSearchEnabled{true};

    ErrorReporter mErrors;
    PluginResourceTable mResources{mErrors};
};

//! The process-wide registry that getPluginRegistry() returns. Never destroyed.
PluginRegistry& globalPluginRegistry() noexcept;

} // namespace kiln::plugin
