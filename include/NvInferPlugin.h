// Kiln: the entry point of Kiln's own plugin collection (libkiln_plugins, the
// counterpart of TensorRT's libnvinfer_plugin).
#ifndef NV_INFER_PLUGIN_H
#define NV_INFER_PLUGIN_H

#include "NvInfer.h"
#include "NvInferPluginUtils.h"

extern "C"
{
    //! Registers every creator of Kiln's plugin collection under libNamespace.
    //! logger is an nvinfer1::ILogger* (or nullptr). Call it once before using the registry.
    TENSORRTAPI bool initLibNvInferPlugins(void* logger, char const* libNamespace);
} // extern "C"

#endif // NV_INFER_PLUGIN_H
