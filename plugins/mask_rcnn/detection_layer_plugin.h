// DetectionLayer_TRT 1: Mask R-CNN's (matterport) final detections: each ROI's best class, its deltas applied,
// per-class NMS, the best keep_topk of each image (README.md).
#pragma once

#include "refine_host.h"

#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct DetectionLayerParams
{
    int32_t numClasses{0};
    int32_t keepTopK{0};
    float scoreThreshold{0.F};
    float iouThreshold{0.F};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("num_classes", numClasses, Need::kREQUIRED);
        field("keep_topk", keepTopK, Need::kREQUIRED);
        field("score_threshold", scoreThreshold, Need::kREQUIRED);
        field("iou_threshold", iouThreshold, Need::kREQUIRED);
    }
};

//! Throws PluginError naming `plugin` on out-of-range fields (shared with GenerateDetection_TRT).
void checkDetectionParams(char const* plugin, DetectionLayerParams const& params);

//! The selection both detection plugins make, with the argmax starting at `firstClass`; class 0 is the background.
mrcnn::DetectionRule detectionRuleOf(DetectionLayerParams const& params, int32_t firstClass);

class DetectionLayerPlugin : public LegacyPlugin<DetectionLayerPlugin, DetectionLayerParams>
{
public:
    static constexpr char const* kName = "DetectionLayer_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(DetectionLayerParams const& params)
    {
        checkDetectionParams(kName, params);
    }

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    mrcnn::DetectionRule rule() const;
};

} // namespace kiln::plugins
