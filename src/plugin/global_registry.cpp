#include "plugin/registry.h"

namespace kiln::plugin
{

PluginRegistry& globalPluginRegistry() noexcept
{
    // Never destroyed: plugin libraries and static objects of the application may still
    // deregister creators while the process exits.
    static auto* const registry = new PluginRegistry();
    return *registry;
}

} // namespace kiln::plugin

extern "C" nvinfer1::IPluginRegistry* getPluginRegistry() noexcept
{
    return &kiln::plugin::globalPluginRegistry();
}
