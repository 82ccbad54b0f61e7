// MultilevelProposeROI_TRT 1: TLT/TAO Mask R-CNN's region proposals from the RPN's per-level objectness and deltas
// (levels P2-P6), over anchors the plugin generates from the image size; NMS per level, then the best proposals of
// all levels (README.md).
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct MultilevelProposeRoiParams
{
    int32_t preNmsTopK{0};
    int32_t keepTopK{0};
    float fgThreshold{0.F};
    float iouThreshold{0.F};
    std::vector<int32_t> imageSize{3, 832, 1344}; //!< [C, H, W]

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("prenms_topk", preNmsTopK, Need::kREQUIRED);
        field("keep_topk", keepTopK, Need::kREQUIRED);
        field("fg_threshold", fgThreshold, Need::kREQUIRED);
        field("iou_threshold", iouThreshold, Need::kREQUIRED);
        field("image_size", imageSize, Need::kOPTIONAL);
    }
};

class MultilevelProposeRoiPlugin : public LegacyPlugin<MultilevelProposeRoiPlugin, MultilevelProposeRoiParams>
{
public:
    static constexpr char const* kName = "MultilevelProposeROI_TRT";
    static constexpr char const* kVersion = "1";
    static constexpr int32_t kLevels = mrcnn::TltPyramidAnchors::kLevels;
    using LegacyPlugin::LegacyPlugin;

    static void check(MultilevelProposeRoiParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    mrcnn::TltPyramidAnchors anchors() const;
    mrcnn::ProposalRule rule() const;
};

} // namespace kiln::plugins
