// Region_TRT 1: YOLOv2's region layer without a softmax tree, an IPluginV2Ext plugin.
#pragma once

#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct RegionParams
{
    int32_t num{0};     //!< boxes (anchors) per grid cell
    int32_t coords{4};  //!< box coordinates per box; NVIDIA supports 4 only
    int32_t classes{0}; //!< class scores per box

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("num", num, Need::kREQUIRED);
        field("coords", coords, Need::kOPTIONAL);
        field("classes", classes, Need::kREQUIRED);
    }
};

class RegionPlugin : public LegacyPlugin<RegionPlugin, RegionParams>
{
public:
    static constexpr char const* kName = "Region_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(RegionParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
