#include "multilevel_propose_kernels.h"

#include "refine_device.cuh"

#include <cuda_fp16.h>

#include <vector>

namespace kiln::plugins::mrcnn
{
namespace
{

constexpr int32_t kLevels = TltPyramidAnchors::kLevels;

__device__ inline float loadValue(FloatTensor const& tensor, int64_t i)
{
    return tensor.half ? __half2float(static_cast<__half const*>(tensor.data)[i])
                       : static_cast<float const*>(tensor.data)[i];
}

//! One level's candidates: the objectness, the level's anchor refined by its deltas.
struct LevelProposalSource
{
    TltPyramidAnchors anchors;
    int32_t level;
    int32_t count;
    FloatTensor scores;
    FloatTensor deltas;

    __device__ float score(int32_t image, int32_t i) const
    {
        return loadValue(scores, int64_t{image} * count + i);
    }
    __device__ YxBox box(int32_t image, int32_t i) const
    {
        int64_t const at = (int64_t{image} * count + i) * 4;
        float const delta[4]
            = {loadValue(deltas, at), loadValue(deltas, at + 1), loadValue(deltas, at + 2), loadValue(deltas, at + 3)};
        return anchors.proposal(level, i, delta);
    }
};

//! Every level's NMS survivors, seen as one list per image: level l's k-th survivor is slot start[l] + k.
struct LevelSurvivors
{
    KeptBoxes level[kLevels];
    int32_t start[kLevels + 1]; //!< start[kLevels]: the slots per image

    __device__ int32_t levelOf(int32_t slot) const
    {
        int32_t l = 0;
        while (l + 1 < kLevels && slot >= start[l + 1])
        {
            ++l;
        }
        return l;
    }
    //! The survivor in `slot` of `image`, or null where the level kept fewer.
    __device__ ScoredBox const* at(int64_t image, int32_t slot) const
    {
        int32_t const l = levelOf(slot);
        int32_t const k = slot - start[l];
        return k < level[l].keptCount[image] ? &level[l].kept[image * level[l].stride + k] : nullptr;
    }
};

//! The per-image ranking of all levels' survivors.
struct MergeBuffers
{
    uint32_t* keysIn;
    uint32_t* keysOut;
    int32_t* slotsIn;
    int32_t* slotsOut;
    int32_t* offsets;
    void* sortTemp;
    size_t sortBytes;

    MergeBuffers(WorkspaceLayout& layout, int32_t batch, int32_t slots)
    {
        int64_t const all = int64_t{batch} * slots;
        keysIn = layout.take<uint32_t>(all);
        keysOut = layout.take<uint32_t>(all);
        slotsIn = layout.take<int32_t>(all);
        slotsOut = layout.take<int32_t>(all);
        offsets = layout.take<int32_t>(batch + 1);
        sortBytes = sortSegmentsTempBytes(static_cast<int32_t>(all), batch);
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

//! Every buffer of a run, taken from one layout in one order (sizing and running agree).
struct MultilevelBuffers
{
    std::vector<ProposalBuffers> levels;
    LevelSurvivors survivors{};
    MergeBuffers merge;

    MultilevelBuffers(
        WorkspaceLayout& layout, int32_t batch, TltPyramidAnchors const& anchors, ProposalRule const& rule)
        : levels(takeLevels(layout, batch, anchors, rule))
        , merge(layout, batch, slotsOf(levels))
    {
        for (int32_t l = 0; l < kLevels; ++l)
        {
            survivors.level[l] = levels[l].survivors;
            survivors.start[l + 1] = survivors.start[l] + static_cast<int32_t>(levels[l].survivors.stride);
        }
    }

    static std::vector<ProposalBuffers> takeLevels(
        WorkspaceLayout& layout, int32_t batch, TltPyramidAnchors const& anchors, ProposalRule const& rule)
    {
        std::vector<ProposalBuffers> levels;
        for (int32_t l = 0; l < kLevels; ++l)
        {
            levels.emplace_back(layout, batch, static_cast<int32_t>(anchors.countOf(l)), rule);
        }
        return levels;
    }
    static int32_t slotsOf(std::vector<ProposalBuffers> const& levels)
    {
        int64_t slots = 0;
        for (ProposalBuffers const& level : levels)
        {
            slots += level.survivors.stride;
        }
        return static_cast<int32_t>(slots);
    }
};

//! Keys laid out [image, slot]: the survivor's score, or 0 for a slot its level left empty.
__global__ void mergeKeys(LevelSurvivors survivors, int32_t batch, MergeBuffers buffers)
{
    int32_t const slots = survivors.start[kLevels];
    int64_t const all = int64_t{batch} * slots;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        auto const slot = static_cast<int32_t>(i % slots);
        ScoredBox const* kept = survivors.at(i / slots, slot);
        buffers.keysIn[i] = kept != nullptr ? orderedScoreKey(kept->score) : 0U;
        buffers.slotsIn[i] = slot;
    }
}

__device__ inline void storeValue(float* out, float value)
{
    *out = value;
}
__device__ inline void storeValue(__half* out, float value)
{
    *out = __float2half(value);
}

//! Row k of each image: its k-th best survivor over all levels, or zeros.
template <typename T>
__global__ void mergedRows(LevelSurvivors survivors, int32_t batch, int32_t keepTopK, MergeBuffers buffers, T* rows)
{
    int32_t const slots = survivors.start[kLevels];
    int64_t const all = int64_t{batch} * keepTopK;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const image = i / keepTopK;
        auto const k = static_cast<int32_t>(i % keepTopK);
        int32_t kept = 0;
        for (int32_t l = 0; l < kLevels; ++l)
        {
            kept += survivors.level[l].keptCount[image];
        }
        YxBox box{0.F, 0.F, 0.F, 0.F};
        if (k < kept)
        {
            box = survivors.at(image, buffers.slotsOut[image * slots + k])->box;
        }
        storeValue(rows + i * 4, box.y1);
        storeValue(rows + i * 4 + 1, box.x1);
        storeValue(rows + i * 4 + 2, box.y2);
        storeValue(rows + i * 4 + 3, box.x2);
    }
}

} // namespace

size_t multilevelProposeWorkspaceSize(int32_t batch, TltPyramidAnchors const& anchors, ProposalRule const& rule)
{
    return workspaceBytes<MultilevelBuffers>(batch, anchors, rule);
}

cudaError_t launchMultilevelPropose(MultilevelProposeRun const& run, void* workspace, cudaStream_t stream)
{
    if (run.batch <= 0)
    {
        return cudaSuccess;
    }
    WorkspaceLayout layout(workspace);
    MultilevelBuffers const buffers(layout, run.batch, run.anchors, run.rule);
    for (int32_t l = 0; l < kLevels; ++l)
    {
        auto const count = static_cast<int32_t>(run.anchors.countOf(l));
        LevelProposalSource const source{run.anchors, l, count, run.scores[l], run.deltas[l]};
        cudaError_t const status = runProposals(source, run.rule, buffers.levels[l], stream);
        if (status != cudaSuccess)
        {
            return status;
        }
    }
    // Each image's survivors by descending score; the stable sort keeps ties in level order, then NMS order.
    int32_t const slots = buffers.survivors.start[kLevels];
    MergeBuffers const& merge = buffers.merge;
    mergeKeys<<<gridBlocks(int64_t{run.batch} * slots), kGridThreads, 0, stream>>>(buffers.survivors, run.batch, merge);
    fillSegmentOffsets<<<gridBlocks(run.batch + 1), kGridThreads, 0, stream>>>(merge.offsets, run.batch, slots);
    void* temp = merge.sortTemp;
    size_t bytes = merge.sortBytes;
    cudaError_t const status = sortSegmentsDescending(temp, bytes, merge.keysIn, merge.keysOut, merge.slotsIn,
        merge.slotsOut, run.batch * slots, run.batch, merge.offsets, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const rows = int64_t{run.batch} * run.rule.keepTopK;
    if (run.proposalsHalf)
    {
        mergedRows<__half><<<gridBlocks(rows), kGridThreads, 0, stream>>>(
            buffers.survivors, run.batch, run.rule.keepTopK, merge, static_cast<__half*>(run.proposals));
    }
    else
    {
        mergedRows<float><<<gridBlocks(rows), kGridThreads, 0, stream>>>(
            buffers.survivors, run.batch, run.rule.keepTopK, merge, static_cast<float*>(run.proposals));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins::mrcnn
