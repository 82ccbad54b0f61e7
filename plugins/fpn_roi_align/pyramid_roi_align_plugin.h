// PyramidROIAlign_TRT 1: ROI align over an FPN's P2-P5, each ROI reading the level its area selects.
#pragma once

#include "fpn_sampling.h"

#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct PyramidRoiAlignParams
{
    int32_t fpnScale{224};
    int32_t pooledSize{7};
    std::vector<int32_t> imageSize{1024, 1024}; //!< [height, width]
    bool roiCoordsAbsolute{true};
    bool roiCoordsSwap{false};
    bool roiCoordsPlusOne{false};
    int32_t roiCoordsTransform{2};
    int32_t samplingRatio{0};
    bool legacy{false};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("fpn_scale", fpnScale, Need::kOPTIONAL);
        field("pooled_size", pooledSize, Need::kOPTIONAL);
        field("image_size", imageSize, Need::kOPTIONAL);
        field("roi_coords_absolute", roiCoordsAbsolute, Need::kOPTIONAL);
        field("roi_coords_swap", roiCoordsSwap, Need::kOPTIONAL);
        field("roi_coords_plusone", roiCoordsPlusOne, Need::kOPTIONAL);
        field("roi_coords_transform", roiCoordsTransform, Need::kOPTIONAL);
        field("sampling_ratio", samplingRatio, Need::kOPTIONAL);
        field("legacy", legacy, Need::kOPTIONAL);
    }
};

class PyramidRoiAlignPlugin : public LegacyPlugin<PyramidRoiAlignPlugin, PyramidRoiAlignParams>
{
public:
    static constexpr char const* kName = "PyramidROIAlign_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(PyramidRoiAlignParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    //! The fields as fpn_sampling.h's rule; `legacy` replaces the coordinate fields by the original plugin's.
    fpn::RoiAlignRule rule() const;
};

} // namespace kiln::plugins
