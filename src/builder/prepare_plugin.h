// Pass 4 of the build for one plugin layer: format and type negotiation, then
// the calls TensorRT makes while building (configure per profile, workspace size,
// aliased outputs, the tactics timed and the fastest set, initialize, serialize), on a
// clone of the network's plugin.
#pragma once

#include <kiln/Backend.h>

#include "backend/plugin_timer.h"
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

//! What the build's configuration decides for its plugins.
struct PluginBuildOptions
{
    bool preferHalf{false}; //!< BuilderFlag::kFP16: offer FP16 before FP32
    Backend backend{Backend::kCPU};
    bool aliasedIo{false}; //!< PreviewFeature::kALIASED_PLUGIN_IO_10_03: ask V3 plugins which outputs alias inputs
    //! Times the tactics a plugin offers; nullptr where this build cannot time (then the first tactic is taken).
    backend::PluginTimer* timer{nullptr};
};

//! Fills params' ioTypes, ioFormats, ioScales, workspaceBytes, aliasedInputs, tactic and payload. False with error
//! naming the plugin.
bool preparePlugin(network::PluginParams& params, std::vector<PluginTensorInfo> const& inputs,
    std::vector<PluginTensorInfo> const& outputs, PluginBuildOptions const& options, std::string& error);

} // namespace kiln::builder
