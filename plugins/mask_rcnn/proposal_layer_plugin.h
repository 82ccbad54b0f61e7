// ProposalLayer_TRT 1: Mask R-CNN's (matterport) region proposals from the RPN's objectness and deltas, over
// anchors the plugin generates from the image size (README.md).
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct ProposalLayerParams
{
    int32_t preNmsTopK{0};
    int32_t keepTopK{0};
    float iouThreshold{0.F};
    std::vector<int32_t> imageSize{3, 1024, 1024}; //!< [C, H, W]

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("prenms_topk", preNmsTopK, Need::kREQUIRED);
        field("keep_topk", keepTopK, Need::kREQUIRED);
        field("iou_threshold", iouThreshold, Need::kREQUIRED);
        field("image_size", imageSize, Need::kOPTIONAL);
    }
};

class ProposalLayerPlugin : public LegacyPlugin<ProposalLayerPlugin, ProposalLayerParams>
{
public:
    static constexpr char const* kName = "ProposalLayer_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(ProposalLayerParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    mrcnn::PyramidAnchors anchors() const;
    mrcnn::ProposalRule rule() const;
};

} // namespace kiln::plugins
