// PriorBox_TRT 1: SSD's prior (anchor) boxes for one feature map, an IPluginV2Ext plugin.
#pragma once

#include "common/device_weights.h"
#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct PriorBoxParams
{
    std::vector<float> minSize;      //!< square box edges, pixels
    std::vector<float> maxSize;      //!< empty, or one per minSize: an extra square box of edge sqrt(min * max)
    std::vector<float> aspectRatios; //!< besides the built-in 1
    bool flip{false};                //!< add 1 / r for each aspect ratio r
    bool clip{false};                //!< clip coordinates to [0, 1]
    std::vector<float> variance;     //!< four values, copied to the second channel
    int32_t imgH{0};                 //!< 0: the height of the second input (the image)
    int32_t imgW{0};                 //!< 0: the width of the second input
    float stepH{0.F};                //!< 0: imgH / the feature map's height
    float stepW{0.F};                //!< 0: imgW / the feature map's width
    float offset{0.5F};              //!< where in a cell its boxes are centred, in cells

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("minSize", minSize, Need::kREQUIRED);
        field("maxSize", maxSize, Need::kOPTIONAL);
        field("aspectRatios", aspectRatios, Need::kOPTIONAL);
        field("flip", flip, Need::kREQUIRED);
        field("clip", clip, Need::kREQUIRED);
        field("variance", variance, Need::kREQUIRED);
        field("imgH", imgH, Need::kOPTIONAL);
        field("imgW", imgW, Need::kOPTIONAL);
        field("stepH", stepH, Need::kOPTIONAL);
        field("stepW", stepW, Need::kOPTIONAL);
        field("offset", offset, Need::kREQUIRED);
    }
};

//! Where one feature map's boxes lie: the image size and steps, resolved against the inputs' shapes.
struct PriorGrid
{
    int64_t height;
    int64_t width;
    float imageH;
    float imageW;
    float stepH;
    float stepW;
};

class PriorBoxPlugin : public LegacyPlugin<PriorBoxPlugin, PriorBoxParams>
{
public:
    static constexpr char const* kName = "PriorBox_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(PriorBoxParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

    //! The boxes of one cell, in NVIDIA's order: for each minSize, the square of edge minSize, the square of edge
    //! sqrt(minSize * maxSize) where maxSize is given, then one box per aspect ratio other than 1. Each box is its
    //! width and height in pixels.
    std::vector<float> cellBoxSizes() const;

private:
    PriorGrid grid(PluginTensors const& io) const;
    DeviceWeights mDeviceSizes;
};

} // namespace kiln::plugins
