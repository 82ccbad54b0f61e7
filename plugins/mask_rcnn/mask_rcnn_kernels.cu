#include "mask_rcnn_kernels.h"

#include "refine_device.cuh"

namespace kiln::plugins::mrcnn
{
namespace
{

//! ProposalLayer's candidates: the foreground score, the generated anchor refined by its deltas.
struct PyramidProposalSource
{
    PyramidAnchors pyramid;
    int32_t anchors;
    float const* scores;
    float const* deltas;

    __device__ float score(int32_t image, int32_t i) const
    {
        return scores[(int64_t{image} * anchors + i) * 2 + 1];
    }
    __device__ YxBox box(int32_t image, int32_t i) const
    {
        return applyNormalizedDelta(pyramid.anchor(i), deltas + (int64_t{image} * anchors + i) * 4);
    }
};

//! Slot k of each image: the k-th survivor when it scores above kMinOutputScore, else zeros.
__global__ void proposalRows(KeptBoxes survivors, int32_t batch, int32_t keepTopK, float* proposals)
{
    int64_t const all = int64_t{batch} * keepTopK;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const image = i / keepTopK;
        auto const k = static_cast<int32_t>(i % keepTopK);
        YxBox box{0.F, 0.F, 0.F, 0.F};
        if (k < survivors.keptCount[image])
        {
            ScoredBox const& kept = survivors.kept[image * survivors.stride + k];
            if (kept.score > kMinOutputScore)
            {
                box = kept.box;
            }
        }
        proposals[i * 4] = box.y1;
        proposals[i * 4 + 1] = box.x1;
        proposals[i * 4 + 2] = box.y2;
        proposals[i * 4 + 3] = box.x2;
    }
}

//! DetectionLayer's and GenerateDetection's candidates: each class's score, the ROI refined by its deltas.
struct RoiDetectionSource
{
    RoiRefinement refinement;
    int32_t rois;
    int32_t classes;
    float const* scores;
    float const* deltas;
    float const* roiBoxes;

    __device__ float score(int32_t image, int32_t roi, int32_t cls) const
    {
        return scores[(int64_t{image} * rois + roi) * classes + cls];
    }
    __device__ YxBox box(int32_t image, int32_t roi, int32_t cls) const
    {
        float const* r = roiBoxes + (int64_t{image} * rois + roi) * 4;
        float const* delta = deltas + ((int64_t{image} * rois + roi) * classes + cls) * 4;
        return refinement.apply(YxBox{r[0], r[1], r[2], r[3]}, delta);
    }
};

} // namespace

size_t proposalLayerWorkspaceSize(int32_t batch, int32_t anchors, ProposalRule const& rule)
{
    return workspaceBytes<ProposalBuffers>(batch, anchors, rule);
}

cudaError_t launchProposalLayer(ProposalLayerRun const& run, void* workspace, cudaStream_t stream)
{
    if (run.batch <= 0)
    {
        return cudaSuccess;
    }
    WorkspaceLayout layout(workspace);
    ProposalBuffers const buffers(layout, run.batch, run.anchors, run.rule);
    PyramidProposalSource const source{run.pyramid, run.anchors, run.scores, run.deltas};
    cudaError_t const status = runProposals(source, run.rule, buffers, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const slots = int64_t{run.batch} * run.rule.keepTopK;
    proposalRows<<<gridBlocks(slots), kGridThreads, 0, stream>>>(
        buffers.survivors, run.batch, run.rule.keepTopK, run.proposals);
    return cudaGetLastError();
}

size_t roiDetectionWorkspaceSize(int32_t batch, int32_t rois, DetectionRule const& rule)
{
    return workspaceBytes<DetectionBuffers>(batch, rois, rule);
}

cudaError_t launchRoiDetections(RoiDetectionRun const& run, void* workspace, cudaStream_t stream)
{
    if (run.batch <= 0)
    {
        return cudaSuccess;
    }
    WorkspaceLayout layout(workspace);
    DetectionBuffers const buffers(layout, run.batch, run.rois, run.rule);
    RoiDetectionSource const source{run.refinement, run.rois, run.rule.classes, run.scores, run.deltas, run.roiBoxes};
    return runDetections(source, run.rule, buffers, run.detections, stream);
}

} // namespace kiln::plugins::mrcnn
