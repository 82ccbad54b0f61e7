// What PyramidROIAlign_TRT and MultilevelCropAndResize_TRT share outside the math: their input checks, and running
// the rule of fpn_sampling.h on the host or the device.
#pragma once

#include "fpn_sampling.h"

#include "common/plugin_tensors.h"

#include <NvInferRuntime.h>

namespace kiln::plugins::fpn
{

//! The output [R, C, pooled, pooled] of ROIs [R, 4] and `levels` maps [C, H, W] (shapes without the batch axis);
//! throws PluginError naming `plugin` when the inputs are not that.
nvinfer1::Dims outputDims(
    char const* plugin, nvinfer1::Dims const* inputs, int32_t nbInputs, int32_t levels, int32_t pooled);

//! ROI align by `rule` on the host (FP32 or FP16 tensors, computed in float).
void runHost(PluginTensors const& io, RoiAlignRule const& rule);

//! The same on the device; throws PluginError naming `plugin` on a CUDA error.
void runDevice(char const* plugin, PluginTensors const& io, RoiAlignRule const& rule, cudaStream_t stream);

} // namespace kiln::plugins::fpn
