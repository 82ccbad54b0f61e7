// Pass 4 of the build for one plugin layer: format and type negotiation, then
// the calls TensorRT makes while building (configure per profile, workspace size,
// initialize, serialize), on a clone of the network's plugin.
#pragma once

#include <kiln/Backend.h>

#include "network/plugin_layer.h"

#include <NvInfer.h>

#include <array>
#include <string>
#include <vector>

namespace kiln::builder
{

//! One tensor of the plugin layer as the builder sees it.
struct PluginTensorInfo
{
    nvinfer1::DataType type;                             //!< the type of the tensor in the network
    nvinfer1::Dims dims;                                 //!< -1 where known only at run time
    std::vector<std::array<nvinfer1::Dims, 3>> profiles; //!< per profile: kMIN, kOPT, kMAX
    float scale{-1.0F}; //!< PluginTensorDesc::scale: an INT8 or FP8 tensor's quantization scale, -1 where none
};

//! Fills params' ioTypes, ioFormats, ioScales, workspaceBytes and payload. False with error naming the plugin.
bool preparePlugin(network::PluginParams& params, std::vector<PluginTensorInfo> const& inputs,
    std::vector<PluginTensorInfo> const& outputs, bool preferHalf, Backend backend, std::string& error);

} // namespace kiln::builder
