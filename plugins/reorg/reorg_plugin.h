// Reorg_TRT 1 (IPluginV2Ext) and 2 (IPluginV2DynamicExt): YOLOv2's reorg layer (darknet's reorg with
// forward = 0). Both versions run the same kernels.
#pragma once

#include "common/dynamic_plugin.h"
#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct ReorgParams
{
    int32_t stride{0}; //!< the height and width shrink by stride, the channels grow by stride^2

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("stride", stride, Need::kREQUIRED);
    }
};

class ReorgPlugin : public LegacyPlugin<ReorgPlugin, ReorgParams>
{
public:
    static constexpr char const* kName = "Reorg_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(ReorgParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

class ReorgDynamicPlugin : public DynamicPlugin<ReorgDynamicPlugin, ReorgParams>
{
public:
    static constexpr char const* kName = "Reorg_TRT";
    static constexpr char const* kVersion = "2";
    using DynamicPlugin::DynamicPlugin;

    static void check(ReorgParams const& params)
    {
        ReorgPlugin::check(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
