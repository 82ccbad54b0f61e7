#include "plugin_libraries.h"

#include "backend_error.h"
#include "server_log.h"

#include <NvInferPlugin.h>

#include <dlfcn.h>

#include <mutex>
#include <set>

namespace kiln::triton
{

void loadPluginLibraries(std::vector<std::string> const& paths)
{
    static std::mutex mutex;
    static std::set<std::string> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    for (std::string const& path : paths)
    {
        if (loaded.count(path) != 0)
        {
            continue;
        }
        if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
        {
            char const* why = dlerror();
            throw BackendError(TRITONSERVER_ERROR_NOT_FOUND,
                "cannot load plugin library " + path + ": " + (why != nullptr ? why : "unknown reason"));
        }
        loaded.insert(path);
        logInfo("Kiln: loaded plugin library " + path);
    }
}

void registerKilnPlugins()
{
    static std::once_flag once;
    std::call_once(once, [] { initLibNvInferPlugins(&serverLogger(), ""); });
}

} // namespace kiln::triton
