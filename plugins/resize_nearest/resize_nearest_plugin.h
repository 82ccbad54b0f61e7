// ResizeNearest_TRT 1: nearest-neighbour resize of the last two axes by one scale factor (Mask R-CNN's FPN upsampling).
#pragma once

#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct ResizeNearestParams
{
    float scale{0.F}; //!< output extent = int(input extent * scale) on the last two axes

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("scale", scale, Need::kREQUIRED);
    }
};

class ResizeNearestPlugin : public LegacyPlugin<ResizeNearestPlugin, ResizeNearestParams>
{
public:
    static constexpr char const* kName = "ResizeNearest_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(ResizeNearestParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
