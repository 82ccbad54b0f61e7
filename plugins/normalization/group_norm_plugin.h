// GroupNormalizationPlugin 1: group normalization of X [N, C, spatial...] with per-channel scale and bias inputs.
#pragma once

#include "common/dynamic_plugin.h"

namespace kiln::plugins
{

struct GroupNormParams
{
    float eps{1e-5F};     //!< added to the variance
    int32_t numGroups{1}; //!< groups of channels; divides C

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("eps", eps, Need::kOPTIONAL);
        field("num_groups", numGroups, Need::kOPTIONAL);
    }
};

class GroupNormPlugin : public DynamicPlugin<GroupNormPlugin, GroupNormParams>
{
public:
    static constexpr char const* kName = "GroupNormalizationPlugin";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(GroupNormParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
