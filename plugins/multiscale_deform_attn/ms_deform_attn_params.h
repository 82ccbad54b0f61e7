// MultiscaleDeformableAttnPlugin_TRT's shapes and the work its two versions share (1: IPluginV2DynamicExt,
// 2: IPluginV3). The plugin has no fields.
#pragma once

#include "common/fields.h"
#include "common/plugin_tensors.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

inline constexpr char kMsDeformAttnName[] = "MultiscaleDeformableAttnPlugin_TRT";

struct MsDeformAttnParams
{
    template <typename Visit>
    void visit(Visit&& /*field*/)
    {
    }
};

//! The extents of one run: value [N, S, M, D], L levels, sampling_locations [N, Lq, M, L, P, 2].
struct MsDeformAttnShape
{
    int64_t batch{0};
    int64_t valueLength{0}; //!< S: the levels' pixels, concatenated
    int64_t heads{0};       //!< M
    int64_t channels{0};    //!< D: per head
    int64_t levels{0};      //!< L
    int64_t queries{0};     //!< Lq
    int64_t points{0};      //!< P
};

//! "" when inputs of these extents (-1: not known yet) fit the plugin, else what is wrong.
std::string msDeformAttnShapeError(std::vector<std::vector<int64_t>> const& inputs);

//! The output's dimensions [N, Lq, M, D], or rank -1 with the error logged.
nvinfer1::DimsExprs msDeformAttnOutputDims(nvinfer1::DimsExprs const* inputs, int32_t nbInputs);

//! The formats: spatial_shapes and level_start_index INT32; the rest FP32 or FP16, of value's type.
bool msDeformAttnSupports(int32_t pos, nvinfer1::PluginTensorDesc const& desc, nvinfer1::PluginTensorDesc const& value);

//! A run's shape from its five input descriptors; throws PluginError if they do not fit.
MsDeformAttnShape msDeformAttnShapeOf(nvinfer1::PluginTensorDesc const* inputs);

void runMsDeformAttnHost(PluginTensors const& io);
void runMsDeformAttnDevice(PluginTensors const& io, cudaStream_t stream);

} // namespace kiln::plugins
