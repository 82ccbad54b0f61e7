#include "batched_nms_kernels.h"

#include "common/greedy_nms.cuh"
#include "common/grid_size.h"
#include "common/score_sort.cuh"
#include "common/workspace_layout.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

struct BatchedCandidate
{
    NmsBox box;
};

//! The workspace's arrays: stage 1 sorts each (image, class) segment of N boxes, stage 2 each image's
//! classes * topK survivors.
struct BatchedBuffers
{
    int32_t topK; //!< topK limited to the number of boxes
    uint32_t* classKeysIn;
    uint32_t* classKeysOut;
    int32_t* classBoxesIn;
    int32_t* classBoxesOut;
    int32_t* classOffsets;
    int32_t* classCounts;
    int32_t* keptPositions;
    BatchedCandidate* keptCandidates;
    int32_t* keptCount;
    uint32_t* imageKeysIn;
    uint32_t* imageKeysOut;
    int32_t* imageSlotsIn;
    int32_t* imageSlotsOut;
    int32_t* imageOffsets;
    int32_t* imageCounts;
    void* sortTemp;
    size_t sortBytes;

    BatchedBuffers(WorkspaceLayout& layout, BatchedNmsConfig const& config, BatchedNmsShape const& shape)
    {
        topK = std::max(1, std::min(config.topK, shape.boxes));
        int64_t const segments = static_cast<int64_t>(shape.batch) * shape.classes;
        int64_t const classItems = segments * shape.boxes;
        int64_t const imageItems = segments * topK;
        classKeysIn = layout.take<uint32_t>(classItems);
        classKeysOut = layout.take<uint32_t>(classItems);
        classBoxesIn = layout.take<int32_t>(classItems);
        classBoxesOut = layout.take<int32_t>(classItems);
        classOffsets = layout.take<int32_t>(segments + 1);
        classCounts = layout.take<int32_t>(segments);
        keptPositions = layout.take<int32_t>(imageItems);
        keptCandidates = layout.take<BatchedCandidate>(imageItems);
        keptCount = layout.take<int32_t>(segments);
        imageKeysIn = layout.take<uint32_t>(imageItems);
        imageKeysOut = layout.take<uint32_t>(imageItems);
        imageSlotsIn = layout.take<int32_t>(imageItems);
        imageSlotsOut = layout.take<int32_t>(imageItems);
        imageOffsets = layout.take<int32_t>(shape.batch + 1);
        imageCounts = layout.take<int32_t>(shape.batch);
        sortBytes = std::max(sortSegmentsTempBytes(static_cast<int32_t>(classItems), static_cast<int32_t>(segments)),
            sortSegmentsTempBytes(static_cast<int32_t>(imageItems), shape.batch));
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

//! Stage 1 keys, laid out [image, class, box]: scores > threshold outside the background class; counts per segment.
template <typename T>
__global__ void batchedClassKeys(
    T const* scores, BatchedNmsConfig config, BatchedNmsShape shape, uint32_t* keys, int32_t* boxes, int32_t* counts)
{
    int64_t const items = static_cast<int64_t>(shape.batch) * shape.classes * shape.boxes;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const segment = i / shape.boxes;
        auto const box = static_cast<int32_t>(i % shape.boxes);
        auto const cls = static_cast<int32_t>(segment % shape.classes);
        int64_t const image = segment / shape.classes;
        float const score = static_cast<float>(scores[(image * shape.boxes + box) * shape.classes + cls]);
        bool const candidate = score > config.scoreThreshold && cls != config.backgroundLabelId;
        keys[i] = candidate ? orderedScoreKey(score) : 0U;
        boxes[i] = box;
        if (candidate)
        {
            atomicAdd(&counts[segment], 1);
        }
    }
}

template <typename T>
struct BatchedProblem
{
    using Candidate = BatchedCandidate;
    BatchedNmsConfig config;
    BatchedNmsShape shape;
    T const* boxes;
    int32_t const* sortedBoxes;
    int32_t const* counts;
    int32_t topK;

    __device__ int32_t count(int32_t segment) const
    {
        return min(counts[segment], topK);
    }
    __device__ Candidate load(int32_t segment, int32_t i) const
    {
        int32_t const box = sortedBoxes[static_cast<int64_t>(segment) * shape.boxes + i];
        T const* raw = boxes + batchedBoxOffset(config, shape, segment / shape.classes, box, segment % shape.classes);
        return Candidate{NmsBox{{static_cast<float>(raw[0]), static_cast<float>(raw[1]), static_cast<float>(raw[2]),
            static_cast<float>(raw[3])}}};
    }
    __device__ bool suppresses(Candidate const& kept, Candidate const& later) const
    {
        return batchedIou(kept.box, later.box, config.isNormalized, config.caffeSemantics) > config.iouThreshold;
    }
};

//! Stage 2 keys, laid out [image, class, k]: the k-th survivor of the class, or 0; slot value class * topK + k.
template <typename T>
__global__ void batchedImageKeys(T const* scores, BatchedNmsShape shape, BatchedBuffers buffers)
{
    int32_t const topK = buffers.topK;
    int64_t const items = static_cast<int64_t>(shape.batch) * shape.classes * topK;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const segment = i / topK;
        auto const k = static_cast<int32_t>(i % topK);
        int64_t const image = segment / shape.classes;
        auto const cls = static_cast<int32_t>(segment % shape.classes);
        uint32_t key = 0U;
        if (k < buffers.keptCount[segment])
        {
            int32_t const position = buffers.keptPositions[segment * topK + k];
            int32_t const box = buffers.classBoxesOut[segment * shape.boxes + position];
            key = orderedScoreKey(static_cast<float>(scores[(image * shape.boxes + box) * shape.classes + cls]));
            atomicAdd(&buffers.imageCounts[image], 1);
        }
        buffers.imageKeysIn[i] = key;
        buffers.imageSlotsIn[i] = cls * topK + k;
    }
}

//! Slot s of each image: its s-th survivor by score, or box 0, score 0, class -1.
template <typename T>
__global__ void batchedGather(T const* scores, T const* boxes, BatchedNmsConfig config, BatchedNmsShape shape,
    BatchedBuffers buffers, int32_t* numDetections, T* outBoxes, T* outScores, T* outClasses)
{
    int32_t const topK = buffers.topK;
    int64_t const perImage = static_cast<int64_t>(shape.classes) * topK;
    int64_t const slots = static_cast<int64_t>(shape.batch) * config.keepTopK;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < slots;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const image = i / config.keepTopK;
        auto const s = static_cast<int32_t>(i % config.keepTopK);
        int32_t const valid = min(buffers.imageCounts[image], config.keepTopK);
        if (s == 0)
        {
            numDetections[image] = valid;
        }
        if (s >= valid)
        {
            outScores[i] = static_cast<T>(0.F);
            outClasses[i] = static_cast<T>(-1.F);
            for (int32_t v = 0; v < 4; ++v)
            {
                outBoxes[i * 4 + v] = static_cast<T>(0.F);
            }
            continue;
        }
        int32_t const slot = buffers.imageSlotsOut[image * perImage + s];
        int32_t const cls = slot / topK;
        int64_t const segment = image * shape.classes + cls;
        int32_t const position = buffers.keptPositions[segment * topK + slot % topK];
        int32_t const box = buffers.classBoxesOut[segment * shape.boxes + position];
        outScores[i] = scores[(image * shape.boxes + box) * shape.classes + cls];
        outClasses[i] = static_cast<T>(static_cast<float>(cls));
        T const* raw = boxes + batchedBoxOffset(config, shape, image, box, cls);
        for (int32_t v = 0; v < 4; ++v)
        {
            float const value = static_cast<float>(raw[v]);
            outBoxes[i * 4 + v] = static_cast<T>(config.clipBoxes ? clipUnit(value) : value);
        }
    }
}

template <typename T>
cudaError_t runBatchedNms(BatchedNmsConfig const& config, BatchedNmsShape const& shape, BatchedNmsDeviceIo const& io,
    void* workspace, cudaStream_t stream)
{
    WorkspaceLayout layout(workspace);
    BatchedBuffers buffers(layout, config, shape);
    auto const segments = static_cast<int32_t>(static_cast<int64_t>(shape.batch) * shape.classes);
    auto const classItems = static_cast<int32_t>(static_cast<int64_t>(segments) * shape.boxes);
    auto const imageItems = static_cast<int32_t>(static_cast<int64_t>(segments) * buffers.topK);
    auto const* scores = static_cast<T const*>(io.scores);
    auto const* boxes = static_cast<T const*>(io.boxes);

    cudaError_t status = cudaMemsetAsync(buffers.classCounts, 0, sizeof(int32_t) * segments, stream);
    if (status == cudaSuccess)
    {
        status = cudaMemsetAsync(buffers.imageCounts, 0, sizeof(int32_t) * shape.batch, stream);
    }
    if (status == cudaSuccess && classItems > 0)
    {
        batchedClassKeys<T><<<gridBlocks(classItems), kGridThreads, 0, stream>>>(
            scores, config, shape, buffers.classKeysIn, buffers.classBoxesIn, buffers.classCounts);
        fillSegmentOffsets<<<gridBlocks(segments + 1), kGridThreads, 0, stream>>>(
            buffers.classOffsets, segments, shape.boxes);
        status = sortSegmentsDescending(buffers.sortTemp, buffers.sortBytes, buffers.classKeysIn, buffers.classKeysOut,
            buffers.classBoxesIn, buffers.classBoxesOut, classItems, segments, buffers.classOffsets, stream);
        if (status == cudaSuccess)
        {
            BatchedProblem<T> const problem{
                config, shape, boxes, buffers.classBoxesOut, buffers.classCounts, buffers.topK};
            status = launchGreedyNms(problem, segments, buffers.topK, buffers.topK, buffers.keptPositions,
                buffers.keptCandidates, buffers.keptCount, stream);
        }
        if (status == cudaSuccess)
        {
            batchedImageKeys<T><<<gridBlocks(imageItems), kGridThreads, 0, stream>>>(scores, shape, buffers);
            fillSegmentOffsets<<<gridBlocks(shape.batch + 1), kGridThreads, 0, stream>>>(
                buffers.imageOffsets, shape.batch, imageItems / shape.batch);
            status = sortSegmentsDescending(buffers.sortTemp, buffers.sortBytes, buffers.imageKeysIn,
                buffers.imageKeysOut, buffers.imageSlotsIn, buffers.imageSlotsOut, imageItems, shape.batch,
                buffers.imageOffsets, stream);
        }
    }
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const slots = static_cast<int64_t>(shape.batch) * config.keepTopK;
    batchedGather<T><<<gridBlocks(slots), kGridThreads, 0, stream>>>(scores, boxes, config, shape, buffers,
        io.numDetections, static_cast<T*>(io.nmsedBoxes), static_cast<T*>(io.nmsedScores),
        static_cast<T*>(io.nmsedClasses));
    return cudaGetLastError();
}

} // namespace

size_t batchedNmsWorkspaceSize(BatchedNmsConfig const& config, BatchedNmsShape const& shape)
{
    WorkspaceLayout layout;
    BatchedBuffers const buffers(layout, config, shape);
    (void) buffers;
    return layout.size();
}

cudaError_t launchBatchedNms(BatchedNmsConfig const& config, BatchedNmsShape const& shape, BatchedNmsDeviceIo const& io,
    void* workspace, cudaStream_t stream)
{
    if (shape.batch <= 0)
    {
        return cudaSuccess;
    }
    return io.half ? runBatchedNms<__half>(config, shape, io, workspace, stream)
                   : runBatchedNms<float>(config, shape, io, workspace, stream);
}

} // namespace kiln::plugins
