// What a plugin's kernels receive: the tensors of one run, on the host (the CPU backend) or the device (CUDA).
// The plugin bases (dynamic_plugin.h, v3_plugin.h) turn enqueue and enqueueHost into calls of the plugin's
//     void runHost(PluginTensors const& io) const;
//     void runDevice(PluginTensors const& io, cudaStream_t stream) const;
// which throw PluginError on failure.
#pragma once

#include "plugin_error.h"

#include <NvInferRuntime.h>

#include <cstdint>

namespace kiln::plugins
{

struct PluginTensors
{
    nvinfer1::PluginTensorDesc const* inputDesc;
    nvinfer1::PluginTensorDesc const* outputDesc;
    void const* const* inputs;
    void* const* outputs;
    void* workspace;

    template <typename T>
    T const* input(int32_t index) const
    {
        return static_cast<T const*>(inputs[index]);
    }
    template <typename T>
    T* output(int32_t index) const
    {
        return static_cast<T*>(outputs[index]);
    }
};

//! The elements of a tensor of shape `dims`.
inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

//! enqueue's body: the plugin's device kernels, or an error where Kiln was built without CUDA.
template <typename Plugin>
int32_t runOnDevice(Plugin const& plugin, PluginTensors const& io, cudaStream_t stream) noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(Plugin::kName, "enqueue", int32_t{1}, [&] {
        plugin.runDevice(io, stream);
        return int32_t{0};
    });
#else
    (void) plugin;
    (void) io;
    (void) stream;
    logError(std::string(Plugin::kName) + ": this Kiln was built without CUDA; run the plugin on the CPU backend");
    return 1;
#endif
}

//! enqueueHost's body: the plugin's host kernel.
template <typename Plugin>
int32_t runOnHost(Plugin const& plugin, PluginTensors const& io) noexcept
{
    return guarded(Plugin::kName, "enqueueHost", int32_t{1}, [&] {
        plugin.runHost(io);
        return int32_t{0};
    });
}

} // namespace kiln::plugins
