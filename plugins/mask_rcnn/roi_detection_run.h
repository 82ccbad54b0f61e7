// What DetectionLayer_TRT and GenerateDetection_TRT share outside their fields: the input checks, the workspace,
// and running refine_host.h / refine_device.cuh's detection scheme on the host or the device.
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include "common/legacy_plugin.h"

namespace kiln::plugins::mrcnn
{

//! The output [keepTopK, 6] of deltas [R, C * 4, 1, 1], scores [R, C, 1, 1] and ROIs [R, 4] (shapes without the
//! batch axis); throws PluginError naming `plugin` when the inputs are not that.
nvinfer1::Dims roiDetectionDims(
    char const* plugin, nvinfer1::Dims const* inputs, int32_t nbInputs, DetectionRule const& rule);

//! The CUDA workspace for the configured inputs (0 in a build without CUDA).
size_t roiDetectionWorkspace(LegacyConfiguration const& configuration, int32_t maxBatchSize, DetectionRule const& rule);

void runRoiDetectionsOnHost(PluginTensors const& io, DetectionRule const& rule, RoiRefinement const& refinement);

void runRoiDetectionsOnDevice(char const* plugin, PluginTensors const& io, DetectionRule const& rule,
    RoiRefinement const& refinement, cudaStream_t stream);

} // namespace kiln::plugins::mrcnn
