// GenerateDetection_TRT 1: TLT/TAO Mask R-CNN's final detections: each ROI's best class other than the background,
// its deltas applied in pixels, per-class NMS, the best keep_topk of each image (README.md).
#pragma once

#include "detection_layer_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct GenerateDetectionParams
{
    DetectionLayerParams detection;               //!< num_classes, keep_topk, score_threshold, iou_threshold
    std::vector<int32_t> imageSize{3, 832, 1344}; //!< [C, H, W]

    template <typename Visit>
    void visit(Visit&& field)
    {
        detection.visit(field);
        field("image_size", imageSize, Need::kOPTIONAL);
    }
};

class GenerateDetectionPlugin : public LegacyPlugin<GenerateDetectionPlugin, GenerateDetectionParams>
{
public:
    static constexpr char const* kName = "GenerateDetection_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(GenerateDetectionParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    mrcnn::DetectionRule rule() const;
    mrcnn::RoiRefinement refinement() const;
};

} // namespace kiln::plugins
