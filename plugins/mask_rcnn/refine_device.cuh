// The CUDA side of the family's two selection schemes (refine_host.h has the host side), as templates over a
// Source that reads one plugin's inputs:
//     proposals:  __device__ float score(int32_t segment, int32_t i) const;
//                 __device__ YxBox box(int32_t segment, int32_t i) const;      // decoded
//     detections: __device__ float score(int32_t image, int32_t roi, int32_t cls) const;
//                 __device__ YxBox box(int32_t image, int32_t roi, int32_t cls) const;
// Candidates are ranked by CUB's stable segmented radix sort (common/score_sort.cuh), so ties keep the lower index
// first as on the host, and NMS is common/greedy_nms.cuh: any preNmsTopK, keepTopK or ROI count.
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include "common/greedy_nms.cuh"
#include "common/grid_size.h"
#include "common/score_sort.cuh"
#include "common/workspace_layout.h"

#include <algorithm>
#include <cstdint>

namespace kiln::plugins::mrcnn
{

//! The workspace bytes that Buffers(layout, args...) takes: getWorkspaceSize's answer, from the same constructor that
//! hands out the pointers at run time.
template <typename Buffers, typename... Args>
size_t workspaceBytes(Args const&... args)
{
    WorkspaceLayout layout;
    Buffers const buffers(layout, args...);
    (void) buffers;
    return layout.size();
}

struct ScoredBox
{
    YxBox box;
    float score;
};

//! NMS survivors: per segment, keptCount[s] candidates in kept[s * stride ...], best first.
struct KeptBoxes
{
    int64_t stride;
    ScoredBox* kept;
    int32_t* keptCount;
};

// ---- proposals ----------------------------------------------------------------------------------------------------

struct ProposalBuffers
{
    int32_t segments;
    int32_t items; //!< candidates per segment
    uint32_t* keysIn;
    uint32_t* keysOut;
    int32_t* indexIn;
    int32_t* indexOut;
    int32_t* offsets;
    int32_t* counts;
    int32_t* keptPositions;
    KeptBoxes survivors;
    void* sortTemp;
    size_t sortBytes;

    ProposalBuffers(WorkspaceLayout& layout, int32_t segmentCount, int32_t itemCount, ProposalRule const& rule)
        : segments(segmentCount)
        , items(itemCount)
    {
        int64_t const all = int64_t{segments} * items;
        survivors.stride = std::max(1, std::min({rule.keepTopK, rule.preNmsTopK, items}));
        keysIn = layout.take<uint32_t>(all);
        keysOut = layout.take<uint32_t>(all);
        indexIn = layout.take<int32_t>(all);
        indexOut = layout.take<int32_t>(all);
        offsets = layout.take<int32_t>(segments + 1);
        counts = layout.take<int32_t>(segments);
        keptPositions = layout.take<int32_t>(segments * survivors.stride);
        survivors.kept = layout.take<ScoredBox>(segments * survivors.stride);
        survivors.keptCount = layout.take<int32_t>(segments);
        sortBytes = sortSegmentsTempBytes(static_cast<int32_t>(all), segments);
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

template <typename Source>
__global__ void proposalKeys(Source source, ProposalRule rule, ProposalBuffers buffers)
{
    int64_t const all = int64_t{buffers.segments} * buffers.items;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        auto const segment = static_cast<int32_t>(i / buffers.items);
        auto const index = static_cast<int32_t>(i % buffers.items);
        float const score = source.score(segment, index);
        bool const candidate = score >= rule.scoreThreshold;
        buffers.keysIn[i] = candidate ? orderedScoreKey(score) : 0U;
        buffers.indexIn[i] = index;
        if (candidate)
        {
            atomicAdd(&buffers.counts[segment], 1);
        }
    }
}

template <typename Source>
struct ProposalNms
{
    using Candidate = ScoredBox;
    Source source;
    ProposalBuffers buffers;
    ProposalRule rule;

    __device__ int32_t count(int32_t segment) const
    {
        return min(buffers.counts[segment], rule.preNmsTopK);
    }
    __device__ Candidate load(int32_t segment, int32_t i) const
    {
        int32_t const index = buffers.indexOut[int64_t{segment} * buffers.items + i];
        return Candidate{source.box(segment, index), source.score(segment, index)};
    }
    __device__ bool suppresses(Candidate const& kept, Candidate const& later) const
    {
        return boxIou(kept.box, later.box) > rule.iouThreshold;
    }
};

//! Ranks each segment's candidates, keeps the best preNmsTopK through NMS: buffers.survivors holds the result.
template <typename Source>
cudaError_t runProposals(
    Source const& source, ProposalRule const& rule, ProposalBuffers const& buffers, cudaStream_t stream)
{
    int64_t const all = int64_t{buffers.segments} * buffers.items;
    cudaError_t status = cudaMemsetAsync(buffers.counts, 0, sizeof(int32_t) * buffers.segments, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    if (all == 0)
    {
        return cudaMemsetAsync(buffers.survivors.keptCount, 0, sizeof(int32_t) * buffers.segments, stream);
    }
    proposalKeys<Source><<<gridBlocks(all), kGridThreads, 0, stream>>>(source, rule, buffers);
    fillSegmentOffsets<<<gridBlocks(buffers.segments + 1), kGridThreads, 0, stream>>>(
        buffers.offsets, buffers.segments, buffers.items);
    void* temp = buffers.sortTemp;
    size_t bytes = buffers.sortBytes;
    status = sortSegmentsDescending(temp, bytes, buffers.keysIn, buffers.keysOut, buffers.indexIn, buffers.indexOut,
        static_cast<int32_t>(all), buffers.segments, buffers.offsets, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    ProposalNms<Source> const problem{source, buffers, rule};
    return launchGreedyNms(problem, buffers.segments, rule.keepTopK, buffers.survivors.stride, buffers.keptPositions,
        buffers.survivors.kept, buffers.survivors.keptCount, stream);
}

// ---- detections ---------------------------------------------------------------------------------------------------

struct DetectionBuffers
{
    int32_t batch;
    int32_t rois;
    int32_t classes;
    int32_t* bestClass;    //!< [batch, rois], -1 where the ROI is no candidate
    float* bestScore;      //!< [batch, rois]
    uint32_t* classKeysIn; //!< [batch, classes, rois]
    uint32_t* classKeysOut;
    int32_t* classRoisIn;
    int32_t* classRoisOut;
    int32_t* classOffsets;
    int32_t* classCounts;
    int32_t* keptPositions;
    KeptBoxes survivors;   //!< per (image, class)
    uint32_t* imageKeysIn; //!< [batch, classes, stride]
    uint32_t* imageKeysOut;
    int32_t* imageSlotsIn; //!< class * stride + k
    int32_t* imageSlotsOut;
    int32_t* imageOffsets;
    int32_t* imageCounts;
    void* sortTemp;
    size_t sortBytes;

    DetectionBuffers(WorkspaceLayout& layout, int32_t batchCount, int32_t roiCount, DetectionRule const& rule)
        : batch(batchCount)
        , rois(roiCount)
        , classes(rule.classes)
    {
        int64_t const segments = int64_t{batch} * classes;
        int64_t const classItems = segments * rois;
        survivors.stride = std::max(1, std::min(rule.keepTopK, rois));
        int64_t const imageItems = segments * survivors.stride;
        bestClass = layout.take<int32_t>(int64_t{batch} * rois);
        bestScore = layout.take<float>(int64_t{batch} * rois);
        classKeysIn = layout.take<uint32_t>(classItems);
        classKeysOut = layout.take<uint32_t>(classItems);
        classRoisIn = layout.take<int32_t>(classItems);
        classRoisOut = layout.take<int32_t>(classItems);
        classOffsets = layout.take<int32_t>(segments + 1);
        classCounts = layout.take<int32_t>(segments);
        keptPositions = layout.take<int32_t>(imageItems);
        survivors.kept = layout.take<ScoredBox>(imageItems);
        survivors.keptCount = layout.take<int32_t>(segments);
        imageKeysIn = layout.take<uint32_t>(imageItems);
        imageKeysOut = layout.take<uint32_t>(imageItems);
        imageSlotsIn = layout.take<int32_t>(imageItems);
        imageSlotsOut = layout.take<int32_t>(imageItems);
        imageOffsets = layout.take<int32_t>(batch + 1);
        imageCounts = layout.take<int32_t>(batch);
        sortBytes = std::max(sortSegmentsTempBytes(static_cast<int32_t>(classItems), static_cast<int32_t>(segments)),
            sortSegmentsTempBytes(static_cast<int32_t>(imageItems), batch));
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

//! Each ROI's best class from rule.firstClass on (score > 0, ties: the lower class), kept where it is not the
//! background and reaches the threshold.
template <typename Source>
__global__ void detectionBestClass(Source source, DetectionRule rule, DetectionBuffers buffers)
{
    int64_t const all = int64_t{buffers.batch} * buffers.rois;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        auto const image = static_cast<int32_t>(i / buffers.rois);
        auto const roi = static_cast<int32_t>(i % buffers.rois);
        float best = 0.F;
        int32_t label = -1;
        for (int32_t cls = rule.firstClass; cls < rule.classes; ++cls)
        {
            float const score = source.score(image, roi, cls);
            if (score > best)
            {
                best = score;
                label = cls;
            }
        }
        bool const candidate = label >= 0 && label != rule.backgroundClass && best >= rule.scoreThreshold;
        buffers.bestClass[i] = candidate ? label : -1;
        buffers.bestScore[i] = best;
    }
}

//! Keys laid out [image, class, roi]: the ROI's score in its best class's segment, 0 elsewhere.
template <typename Unused = void> // a template, so that every .cu may include it
__global__ void detectionClassKeys(DetectionBuffers buffers)
{
    int64_t const all = int64_t{buffers.batch} * buffers.classes * buffers.rois;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const segment = i / buffers.rois;
        auto const roi = static_cast<int32_t>(i % buffers.rois);
        auto const cls = static_cast<int32_t>(segment % buffers.classes);
        int64_t const image = segment / buffers.classes;
        int64_t const at = image * buffers.rois + roi;
        bool const member = buffers.bestClass[at] == cls;
        buffers.classKeysIn[i] = member ? orderedScoreKey(buffers.bestScore[at]) : 0U;
        buffers.classRoisIn[i] = roi;
        if (member)
        {
            atomicAdd(&buffers.classCounts[segment], 1);
        }
    }
}

template <typename Source>
struct DetectionNms
{
    using Candidate = ScoredBox;
    Source source;
    DetectionBuffers buffers;
    float iouThreshold;

    __device__ int32_t count(int32_t segment) const
    {
        return buffers.classCounts[segment];
    }
    __device__ Candidate load(int32_t segment, int32_t i) const
    {
        int32_t const roi = buffers.classRoisOut[int64_t{segment} * buffers.rois + i];
        int32_t const image = segment / buffers.classes;
        return Candidate{
            source.box(image, roi, segment % buffers.classes), buffers.bestScore[int64_t{image} * buffers.rois + roi]};
    }
    __device__ bool suppresses(Candidate const& kept, Candidate const& later) const
    {
        return boxIou(kept.box, later.box) > iouThreshold;
    }
};

//! Keys laid out [image, class, k]: the class's k-th survivor, or 0; slot class * stride + k.
template <typename Unused = void>
__global__ void detectionImageKeys(DetectionBuffers buffers)
{
    int64_t const stride = buffers.survivors.stride;
    int64_t const all = int64_t{buffers.batch} * buffers.classes * stride;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const segment = i / stride;
        auto const k = static_cast<int32_t>(i % stride);
        bool const kept = k < buffers.survivors.keptCount[segment];
        buffers.imageKeysIn[i] = kept ? orderedScoreKey(buffers.survivors.kept[i].score) : 0U;
        buffers.imageSlotsIn[i] = static_cast<int32_t>((segment % buffers.classes) * stride + k);
        if (kept)
        {
            atomicAdd(&buffers.imageCounts[segment / buffers.classes], 1);
        }
    }
}

//! Rows [y1, x1, y2, x2, label, score] of each image's keepTopK slots, padding [0, 0, 0, 0, -1, 0].
template <typename T>
__global__ void detectionRows(DetectionBuffers buffers, int32_t keepTopK, T* rows)
{
    int64_t const stride = buffers.survivors.stride;
    int64_t const perImage = int64_t{buffers.classes} * stride;
    int64_t const all = int64_t{buffers.batch} * keepTopK;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < all; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const image = i / keepTopK;
        auto const slot = static_cast<int32_t>(i % keepTopK);
        float row[6] = {0.F, 0.F, 0.F, 0.F, -1.F, 0.F};
        if (slot < buffers.imageCounts[image])
        {
            int32_t const at = buffers.imageSlotsOut[image * perImage + slot];
            ScoredBox const& kept = buffers.survivors.kept[image * perImage + at];
            if (kept.score > kMinOutputScore)
            {
                row[0] = kept.box.y1;
                row[1] = kept.box.x1;
                row[2] = kept.box.y2;
                row[3] = kept.box.x2;
                row[4] = static_cast<float>(at / stride);
                row[5] = kept.score;
            }
        }
        for (int32_t v = 0; v < 6; ++v)
        {
            rows[i * 6 + v] = static_cast<T>(row[v]);
        }
    }
}

//! Best class, per-class NMS and the per-image ranking, then the rows (T: the output's type).
template <typename Source, typename T>
cudaError_t runDetections(
    Source const& source, DetectionRule const& rule, DetectionBuffers const& buffers, T* rows, cudaStream_t stream)
{
    auto const segments = static_cast<int32_t>(int64_t{buffers.batch} * buffers.classes);
    int64_t const classItems = int64_t{segments} * buffers.rois;
    int64_t const imageItems = int64_t{segments} * buffers.survivors.stride;
    cudaError_t status = cudaMemsetAsync(buffers.classCounts, 0, sizeof(int32_t) * segments, stream);
    if (status == cudaSuccess)
    {
        status = cudaMemsetAsync(buffers.imageCounts, 0, sizeof(int32_t) * buffers.batch, stream);
    }
    if (status == cudaSuccess)
    {
        status = cudaMemsetAsync(buffers.survivors.keptCount, 0, sizeof(int32_t) * segments, stream);
    }
    if (status == cudaSuccess && classItems > 0)
    {
        detectionBestClass<Source>
            <<<gridBlocks(int64_t{buffers.batch} * buffers.rois), kGridThreads, 0, stream>>>(source, rule, buffers);
        detectionClassKeys<<<gridBlocks(classItems), kGridThreads, 0, stream>>>(buffers);
        fillSegmentOffsets<<<gridBlocks(segments + 1), kGridThreads, 0, stream>>>(
            buffers.classOffsets, segments, buffers.rois);
        void* temp = buffers.sortTemp;
        size_t bytes = buffers.sortBytes;
        status = sortSegmentsDescending(temp, bytes, buffers.classKeysIn, buffers.classKeysOut, buffers.classRoisIn,
            buffers.classRoisOut, static_cast<int32_t>(classItems), segments, buffers.classOffsets, stream);
        if (status == cudaSuccess)
        {
            DetectionNms<Source> const problem{source, buffers, rule.iouThreshold};
            status = launchGreedyNms(problem, segments, rule.keepTopK, buffers.survivors.stride, buffers.keptPositions,
                buffers.survivors.kept, buffers.survivors.keptCount, stream);
        }
        if (status == cudaSuccess)
        {
            detectionImageKeys<<<gridBlocks(imageItems), kGridThreads, 0, stream>>>(buffers);
            fillSegmentOffsets<<<gridBlocks(buffers.batch + 1), kGridThreads, 0, stream>>>(
                buffers.imageOffsets, buffers.batch, static_cast<int32_t>(imageItems / buffers.batch));
            bytes = buffers.sortBytes;
            status = sortSegmentsDescending(temp, bytes, buffers.imageKeysIn, buffers.imageKeysOut,
                buffers.imageSlotsIn, buffers.imageSlotsOut, static_cast<int32_t>(imageItems), buffers.batch,
                buffers.imageOffsets, stream);
        }
    }
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const slots = int64_t{buffers.batch} * rule.keepTopK;
    detectionRows<T><<<gridBlocks(slots), kGridThreads, 0, stream>>>(buffers, rule.keepTopK, rows);
    return cudaGetLastError();
}

} // namespace kiln::plugins::mrcnn
