// Kiln extension: running a plugin on the CPU backend.
//
// TensorRT hands a plugin device pointers and a CUDA stream. Kiln's CPU backend
// has neither, so a plugin that should run there also inherits kiln::IHostPlugin,
// next to its TensorRT interface (any of IPluginV2, V2Ext, V2IOExt, V2DynamicExt,
// or the class that implements IPluginV3OneRuntime):
//
//     class MyPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IHostPlugin
//
// Kiln finds it with dynamic_cast. Building for the CPU backend with a plugin that
// lacks it fails with an error naming the plugin.
#pragma once

#include <NvInferRuntime.h>

namespace kiln
{

class IHostPlugin
{
public:
    //! Runs the plugin on host memory. Descriptors give full shapes, the batch
    //! dimension included, for every plugin interface; types and formats are the
    //! ones negotiated at build time. workspace holds at least the plugin's
    //! getWorkspaceSize bytes. Returns 0 on success, like enqueue.
    virtual int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* workspace)
        = 0;

    virtual ~IHostPlugin() = default;
};

} // namespace kiln
