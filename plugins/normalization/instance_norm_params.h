// InstanceNormalization_TRT's fields and the work its three versions share (1 and 2 as IPluginV2DynamicExt, 3 as
// IPluginV3): checking fields and shapes, and running on the host and the device.
#pragma once

#include "common/device_weights.h"
#include "common/fields.h"
#include "common/plugin_tensors.h"

#include <NvInferRuntime.h>

#include <string>
#include <vector>

namespace kiln::plugins
{

struct InstanceNormParams
{
    float epsilon{1e-5F};      //!< added to the variance
    std::vector<float> scales; //!< one per channel
    std::vector<float> bias;   //!< one per channel
    int32_t relu{0};           //!< > 0: a leaky ReLU with slope `alpha` follows
    float alpha{0.F};          //!< the leaky ReLU's slope for negative values

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("epsilon", epsilon, Need::kOPTIONAL);
        field("scales", scales, Need::kREQUIRED);
        field("bias", bias, Need::kREQUIRED);
        field("relu", relu, Need::kOPTIONAL);
        field("alpha", alpha, Need::kOPTIONAL);
    }
};

inline constexpr char kInstanceNormName[] = "InstanceNormalization_TRT";

//! Throws PluginError naming the field and value unless the fields describe an instance normalization.
void checkInstanceNormParams(InstanceNormParams const& params);

//! "" when an input of rank `rank` with `channels` channels (-1: not known yet) fits; else what is wrong.
std::string instanceNormShapeError(InstanceNormParams const& params, int32_t rank, int64_t channels);

//! The output's dimensions (the input's), or rank -1 with the error logged.
nvinfer1::DimsExprs instanceNormOutputDims(InstanceNormParams const& params, nvinfer1::DimsExprs const& input);

void runInstanceNormHost(InstanceNormParams const& params, PluginTensors const& io);

//! The CUDA run's workspace for an input of `dims` (its largest shape), in bytes.
size_t instanceNormWorkspaceSize(nvinfer1::Dims const& dims);

//! `scales` and `bias` hold the plugin's device copies of its weights.
void runInstanceNormDevice(InstanceNormParams const& params, DeviceWeights const& scales, DeviceWeights const& bias,
    PluginTensors const& io, cudaStream_t stream);

} // namespace kiln::plugins
