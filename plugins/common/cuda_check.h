// Turns a failed CUDA launch or call into a PluginError naming the plugin. Only for builds with CUDA.
#pragma once

#include "plugin_error.h"

#include <cuda_runtime_api.h>

#include <string>

namespace kiln::plugins
{

inline void checkCuda(char const* plugin, cudaError_t status)
{
    if (status != cudaSuccess)
    {
        throw PluginError(std::string(plugin) + ": CUDA error: " + cudaGetErrorString(status));
    }
}

} // namespace kiln::plugins
