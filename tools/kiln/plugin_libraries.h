// Loading plugin libraries the way trtexec does.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli
{

struct PluginLibraries
{
    //! --staticPlugins / --plugins: dlopen'ed by the command itself, so the library's
    //! REGISTER_TENSORRT_PLUGIN initialisers register its creators.
    std::vector<std::string> staticLibraries;
    //! --dynamicPlugins: loaded through IPluginRegistry::loadLibrary (getCreators entry point).
    std::vector<std::string> dynamicLibraries;
};

//! Registers Kiln's own plugin collection, then loads every library. Returns false
//! (after printing why to stderr) if one could not be loaded.
bool loadPluginLibraries(PluginLibraries const& libraries);

} // namespace kiln::cli
