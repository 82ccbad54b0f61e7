// Reorg_TRT 1: YOLOv2's reorg layer (darknet's reorg with forward = 0), an IPluginV2Ext plugin.
#pragma once

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

} // namespace kiln::plugins
