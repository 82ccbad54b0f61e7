// supportsFormatCombination's common rules.
#pragma once

#include <NvInferRuntime.h>

#include <initializer_list>

namespace kiln::plugins
{

//! True when tensor `pos` is linear and of one of `types`.
inline bool isLinearOf(nvinfer1::PluginTensorDesc const& desc, std::initializer_list<nvinfer1::DataType> types)
{
    if (desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    for (nvinfer1::DataType const type : types)
    {
        if (desc.type == type)
        {
            return true;
        }
    }
    return false;
}

//! The usual rule of a floating-point plugin: every tensor linear, the first of `types`-typed, the rest the same type
//! as the first.
inline bool linearSameFloat(nvinfer1::PluginTensorDesc const* inOut, int32_t pos,
    std::initializer_list<nvinfer1::DataType> types = {nvinfer1::DataType::kFLOAT, nvinfer1::DataType::kHALF})
{
    if (!isLinearOf(inOut[pos], types))
    {
        return false;
    }
    return pos == 0 || inOut[pos].type == inOut[0].type;
}

} // namespace kiln::plugins
