#include "plugin/library_loader.h"

#include "core/logging.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>

namespace kiln::plugin
{
namespace
{

class KilnLoggerFinder final : public nvinfer1::ILoggerFinder
{
public:
    nvinfer1::ILogger* findLogger() noexcept override
    {
        return getLogger();
    }
};

//! An object inside libkiln, to recognise libkiln's own entry in the loader's list.
char const kInsideKiln = 0;

std::string canonicalPath(char const* path)
{
    if (path == nullptr)
    {
        return {};
    }
    char* const resolved = realpath(path, nullptr);
    if (resolved == nullptr)
    {
        return path;
    }
    std::string result(resolved);
    std::free(resolved);
    return result;
}

//! The loader's record of the object file that holds address, or nullptr if none does.
link_map const* linkMapHolding(void const* address)
{
    Dl_info info{};
    void* extra = nullptr;
    if (dladdr1(address, &info, &extra, RTLD_DL_LINKMAP) == 0 || extra == nullptr)
    {
        return nullptr;
    }
    return static_cast<link_map const*>(extra);
}

} // namespace

void* openLibrary(char const* path, std::string& error) noexcept
{
    dlerror();
    void* const handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr)
    {
        char const* const reason = dlerror();
        error = reason != nullptr ? reason : "dlopen failed without a reason";
    }
    return handle;
}

void closeLibrary(void* handle, std::string const& path) noexcept
{
    if (handle != nullptr && dlclose(handle) != 0)
    {
        char const* const reason = dlerror();
        logWarning("dlclose(" + path + ") failed: " + (reason != nullptr ? reason : "no reason given"));
    }
}

void* findSymbol(void* handle, char const* name) noexcept
{
    dlerror();
    return dlsym(handle, name);
}

std::string pathOfLibrary(void* handle)
{
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr)
    {
        return {};
    }
    return canonicalPath(map->l_name);
}

std::string libraryHoldingObject(void const* object)
{
    link_map const* holder = linkMapHolding(object);
    if (holder == nullptr && object != nullptr)
    {
        // A creator made with new: the library that defines its class holds the vtable.
        void const* const vtable = *static_cast<void const* const*>(object);
        holder = linkMapHolding(vtable);
    }
    // The main program's entry has an empty name. Creators built into libkiln are part of
    // Kiln, not of a plugin library that a plan would have to name.
    if (holder == nullptr || holder->l_name == nullptr || holder->l_name[0] == '\0'
        || holder == linkMapHolding(&kInsideKiln))
    {
        return {};
    }
    return canonicalPath(holder->l_name);
}

nvinfer1::ILoggerFinder* kilnLoggerFinder() noexcept
{
    // Never destroyed: a plugin library may log from its own static destructors.
    static auto* finder = new KilnLoggerFinder();
    return finder;
}

} // namespace kiln::plugin
