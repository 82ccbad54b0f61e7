// What INT8 plugins share: the rule that turns a value into INT8 with a tensor's scale (PluginTensorDesc::scale), on
// the host and in kernels alike, as Kiln's quantize layer computes it, and the check that a tensor has a scale.
#pragma once

#include "plugin_error.h"

#include "device_common/host_device.h"

#include <NvInferRuntime.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace kiln::plugins
{

//! round(value / scale), half to even, saturated to [-128, 127]; NaN gives 0, as ONNX's QuantizeLinear defines.
KILN_HOST_DEVICE inline int8_t quantizeInt8(float value, float scale)
{
#if defined(__CUDA_ARCH__)
    float const rounded = rintf(value / scale);
#else
    float const rounded = std::nearbyint(value / scale); // the default rounding mode: to nearest, ties to even
#endif
    if (!(rounded == rounded))
    {
        return 0;
    }
    return static_cast<int8_t>(rounded < -128.F ? -128.F : rounded > 127.F ? 127.F : rounded);
}

//! The scale of an INT8 tensor, or a PluginError naming the plugin and the tensor where it has none (-1: no Q/DQ
//! around the plugin and no dynamic range on the tensor).
inline float int8Scale(char const* plugin, nvinfer1::PluginTensorDesc const& desc, char const* tensor)
{
    if (!(desc.scale > 0.F) || !std::isfinite(desc.scale))
    {
        throw PluginError(std::string(plugin) + ": the INT8 tensor '" + tensor + "' has no scale ("
            + std::to_string(desc.scale)
            + "): quantize it with a Q/DQ pair around the plugin, or give it a dynamic range");
    }
    return desc.scale;
}

} // namespace kiln::plugins
