// The CUDA entry points of the Mask R-CNN family (mask_rcnn_kernels.cu); the plugins call them from runDevice.
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::plugins::mrcnn
{

//! ProposalLayer_TRT: scores [batch, anchors, 2] (background, foreground), deltas [batch, anchors, 4], proposals
//! [batch, keepTopK, 4]; FP32.
struct ProposalLayerRun
{
    int32_t batch{0};
    int32_t anchors{0};
    PyramidAnchors pyramid;
    ProposalRule rule;
    float const* scores{nullptr};
    float const* deltas{nullptr};
    float* proposals{nullptr};
};

size_t proposalLayerWorkspaceSize(int32_t batch, int32_t anchors, ProposalRule const& rule);
cudaError_t launchProposalLayer(ProposalLayerRun const& run, void* workspace, cudaStream_t stream);

//! DetectionLayer_TRT and GenerateDetection_TRT: deltas [batch, rois, classes, 4], scores [batch, rois, classes],
//! rois [batch, rois, 4], detections [batch, keepTopK, 6]; FP32.
struct RoiDetectionRun
{
    int32_t batch{0};
    int32_t rois{0};
    DetectionRule rule;
    RoiRefinement refinement;
    float const* deltas{nullptr};
    float const* scores{nullptr};
    float const* roiBoxes{nullptr};
    float* detections{nullptr};
};

size_t roiDetectionWorkspaceSize(int32_t batch, int32_t rois, DetectionRule const& rule);
cudaError_t launchRoiDetections(RoiDetectionRun const& run, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins::mrcnn
