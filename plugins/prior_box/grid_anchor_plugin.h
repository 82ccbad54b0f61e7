// GridAnchor_TRT 1 and GridAnchorRect_TRT 1: the anchors of TensorFlow's SSD models for every feature map at once,
// IPluginV2Ext plugins with no inputs and one output per feature map. The Rect form reads featureMapShapes as
// (height, width) pairs; the other as one edge per square map.
#pragma once

#include "common/device_weights.h"
#include "common/legacy_plugin.h"

#include <utility>
#include <vector>

namespace kiln::plugins
{

struct GridAnchorParams
{
    float minSize{0.2F};                   //!< the scale of the finest layer (SSD's s_min), relative to the image
    float maxSize{0.95F};                  //!< the scale of the coarsest layer (s_max)
    std::vector<float> aspectRatios;       //!< every layer's ratios; the first layer takes the first three only
    std::vector<int32_t> featureMapShapes; //!< per layer: the edge (GridAnchor) or height, width (GridAnchorRect)
    std::vector<float> variance;           //!< four values, copied to each output's second channel
    int32_t numLayers{6};                  //!< feature maps, and outputs

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("minSize", minSize, Need::kOPTIONAL);
        field("maxSize", maxSize, Need::kOPTIONAL);
        field("aspectRatios", aspectRatios, Need::kREQUIRED);
        field("featureMapShapes", featureMapShapes, Need::kREQUIRED);
        field("variance", variance, Need::kREQUIRED);
        field("numLayers", numLayers, Need::kOPTIONAL);
    }
};

template <bool kRect>
class GridAnchorGenerator : public LegacyPlugin<GridAnchorGenerator<kRect>, GridAnchorParams>
{
public:
    static constexpr char const* kName = kRect ? "GridAnchorRect_TRT" : "GridAnchor_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin<GridAnchorGenerator<kRect>, GridAnchorParams>::LegacyPlugin;

    static void check(GridAnchorParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

    //! Layer `layer`'s feature map height and width.
    std::pair<int32_t, int32_t> mapShape(int32_t layer) const;
    //! The boxes of one cell of layer `layer`, as (width, height) pairs relative to the image.
    std::vector<float> cellBoxSizes(int32_t layer) const;

private:
    //! Every layer's cell box sizes, one after another (uploaded once for the device).
    std::vector<float> allBoxSizes() const;
    DeviceWeights mDeviceSizes;
};

} // namespace kiln::plugins
