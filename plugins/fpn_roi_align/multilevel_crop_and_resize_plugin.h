// MultilevelCropAndResize_TRT 1: TLT Mask R-CNN's ROI align over P2-P6, one bilinear sample at each bin's centre.
#pragma once

#include "fpn_sampling.h"

#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct MultilevelCropAndResizeParams
{
    int32_t pooledSize{0};
    std::vector<int32_t> imageSize{3, 832, 1344}; //!< [channels, height, width] of the network's image

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("pooled_size", pooledSize, Need::kREQUIRED);
        field("image_size", imageSize, Need::kOPTIONAL);
    }
};

class MultilevelCropAndResizePlugin : public LegacyPlugin<MultilevelCropAndResizePlugin, MultilevelCropAndResizeParams>
{
public:
    static constexpr char const* kName = "MultilevelCropAndResize_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(MultilevelCropAndResizeParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    fpn::RoiAlignRule rule() const;
};

} // namespace kiln::plugins
