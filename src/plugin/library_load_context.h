// What loadLibrary learns while dlopen runs a plugin library's static initialisers.
// They call registerCreator (REGISTER_TENSORRT_PLUGIN) on the thread that called dlopen,
// so a thread-local context tells their registrations apart from other threads'.
#pragma once

#include "plugin/creator_key.h"

#include <NvInferRuntime.h>

#include <utility>
#include <vector>

namespace kiln::plugin
{

class PluginRegistry;

struct LibraryLoadContext
{
    explicit LibraryLoadContext(PluginRegistry const* loadingRegistry)
        : registry(loadingRegistry)
    {
    }

    //! The registry whose loadLibrary is running; registrations with other registries are not tracked.
    PluginRegistry const* registry;
    //! Creators registered during the load, to attribute to the library (or to undo).
    std::vector<std::pair<CreatorKey, nvinfer1::IPluginCreatorInterface*>> registered;
    //! Registrations that failed because the key was taken: the load fails.
    std::vector<CreatorKey> duplicates;

    //! The context of the load of registry running on this thread, or nullptr.
    static LibraryLoadContext* currentFor(PluginRegistry const* registry) noexcept;

    //! Makes context current on this thread for its lifetime (loads may nest).
    class Scope
    {
    public:
        explicit Scope(LibraryLoadContext& context) noexcept;
        ~Scope();
        Scope(Scope const&) = delete;
        Scope& operator=(Scope const&) = delete;

    private:
        LibraryLoadContext* mOuter;
    };
};

} // namespace kiln::plugin
