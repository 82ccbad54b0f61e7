#include "plugin_libraries.h"

#include "core/printable_text.h"

#include <NvInferPlugin.h>

#include <dlfcn.h>

#include <cstdio>

namespace kiln::cli
{

bool loadPluginLibraries(PluginLibraries const& libraries)
{
    for (auto const& path : libraries.staticLibraries)
    {
        std::fprintf(stderr, "Loading supplied plugin library: %s\n", printableText(path).c_str());
        // RTLD_GLOBAL: plugins in one library may use symbols of another, as under trtexec.
        if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
        {
            char const* why = dlerror();
            std::fprintf(stderr, "kiln: cannot load plugin library %s: %s\n", printableText(path).c_str(),
                printableText(why != nullptr ? why : "unknown error").c_str());
            return false;
        }
    }
    for (auto const& path : libraries.dynamicLibraries)
    {
        std::fprintf(stderr, "Loading dynamic plugin library: %s\n", printableText(path).c_str());
        if (getPluginRegistry()->loadLibrary(path.c_str()) == nullptr)
        {
            std::fprintf(
                stderr, "kiln: cannot load plugin library %s (see the error above)\n", printableText(path).c_str());
            return false;
        }
    }
    // Kiln's own collection last: a creator a supplied library registered (NVIDIA's own plugins built against
    // Kiln's headers, say) stays, and Kiln's of the same name is skipped.
    initLibNvInferPlugins(getLogger(), "");
    return true;
}

} // namespace kiln::cli
