// Host kernels compute in float: these read a tensor of FP32 or FP16 elements as floats and store floats back
// (rounding to nearest even for FP16, as the GPU's conversions do).
#pragma once

#include "plugin_error.h"
#include "plugin_tensors.h"

#include "device_common/half.h"

#include <NvInferRuntime.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::plugins
{

inline std::vector<float> readFloats(nvinfer1::PluginTensorDesc const& desc, void const* data)
{
    std::vector<float> values(static_cast<size_t>(volume(desc.dims)));
    if (desc.type == nvinfer1::DataType::kFLOAT)
    {
        std::memcpy(values.data(), data, values.size() * sizeof(float));
        return values;
    }
    if (desc.type != nvinfer1::DataType::kHALF)
    {
        throw PluginError("readFloats: tensors of FP32 or FP16 only");
    }
    auto const* bits = static_cast<uint16_t const*>(data);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = halfBitsToFloat(bits[i]);
    }
    return values;
}

inline void writeFloats(nvinfer1::PluginTensorDesc const& desc, void* data, std::vector<float> const& values)
{
    if (desc.type == nvinfer1::DataType::kFLOAT)
    {
        std::memcpy(data, values.data(), values.size() * sizeof(float));
        return;
    }
    if (desc.type != nvinfer1::DataType::kHALF)
    {
        throw PluginError("writeFloats: tensors of FP32 or FP16 only");
    }
    auto* bits = static_cast<uint16_t*>(data);
    for (size_t i = 0; i < values.size(); ++i)
    {
        bits[i] = floatToHalfBits(values[i]);
    }
}

} // namespace kiln::plugins
