// A plugin's constant weights in device memory, copied from its parameters the first time a device run needs them
// (never on the CPU backend, so a plugin object works on a machine without a GPU). A copy of the holder starts
// empty: each plugin clone (one per execution context) uploads and frees its own.
#pragma once

#include <mutex>
#include <vector>

namespace kiln::plugins
{

class DeviceWeights
{
public:
    DeviceWeights() = default;
    DeviceWeights(DeviceWeights const& /*other*/) { }
    DeviceWeights& operator=(DeviceWeights const&) = delete;
    ~DeviceWeights();

    //! The device copy of `values` (null when empty), made on the first call; throws PluginError naming `plugin`.
    float const* get(char const* plugin, std::vector<float> const& values) const;

private:
    mutable std::mutex mMutex;
    mutable float* mDevice{nullptr};
};

} // namespace kiln::plugins
