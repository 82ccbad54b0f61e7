// `kiln plugins`: lists the registered plugin creators with their fields.
#pragma once

#include "plugin_libraries.h"

namespace kiln::cli
{

//! Prints every registered creator to stdout. Returns the process exit code.
int listPlugins(PluginLibraries const& libraries);

} // namespace kiln::cli
