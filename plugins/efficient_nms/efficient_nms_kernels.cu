#include "efficient_nms_kernels.h"

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

struct EfficientCandidate
{
    NmsBox box;
    int32_t cls;
};

//! The workspace's arrays; sized and placed by the same code (WorkspaceLayout).
struct EfficientBuffers
{
    uint32_t* keysIn;
    uint32_t* keysOut;
    int32_t* valuesIn;
    int32_t* valuesOut;
    int32_t* offsets;
    int32_t* counts;
    int32_t* keptPositions;
    EfficientCandidate* keptCandidates;
    int32_t* keptCount;
    int32_t* rowStart;
    void* sortTemp;
    size_t sortBytes;
    int64_t stride;

    EfficientBuffers(WorkspaceLayout& layout, EfficientNmsShape const& shape, int32_t maxOutputBoxes)
    {
        int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
        int64_t const items = perImage * shape.batch;
        stride = std::max<int64_t>(1, std::min<int64_t>(maxOutputBoxes, perImage));
        keysIn = layout.take<uint32_t>(items);
        keysOut = layout.take<uint32_t>(items);
        valuesIn = layout.take<int32_t>(items);
        valuesOut = layout.take<int32_t>(items);
        offsets = layout.take<int32_t>(shape.batch + 1);
        counts = layout.take<int32_t>(shape.batch);
        keptPositions = layout.take<int32_t>(shape.batch * stride);
        keptCandidates = layout.take<EfficientCandidate>(shape.batch * stride);
        keptCount = layout.take<int32_t>(shape.batch);
        rowStart = layout.take<int32_t>(shape.batch + 1);
        sortBytes = sortSegmentsTempBytes(static_cast<int32_t>(items), shape.batch);
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

//! Keys of the candidates (score >= threshold, not the background class), 0 for the rest; counts per image.
template <typename T>
__global__ void efficientKeys(T const* scores, EfficientNmsShape shape, float threshold, int32_t background,
    uint32_t* keys, int32_t* values, int32_t* counts)
{
    int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
    int64_t const items = perImage * shape.batch;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        auto const element = static_cast<int32_t>(i % perImage);
        float const score = static_cast<float>(scores[i]);
        bool const candidate = score >= threshold && element % shape.classes != background;
        keys[i] = candidate ? orderedScoreKey(score) : 0U;
        values[i] = element;
        if (candidate)
        {
            atomicAdd(&counts[i / perImage], 1);
        }
    }
}

template <typename T>
struct EfficientProblem
{
    using Candidate = EfficientCandidate;
    EfficientNmsConfig config;
    EfficientNmsShape shape;
    T const* boxes;
    T const* anchors;
    int32_t const* sortedElements;
    int32_t const* counts;

    __device__ int32_t count(int32_t image) const
    {
        return counts[image];
    }
    __device__ Candidate load(int32_t image, int32_t i) const
    {
        int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
        int32_t const element = sortedElements[image * perImage + i];
        int32_t const anchor = element / shape.classes;
        int32_t const cls = element % shape.classes;
        T const* raw = boxes + boxOffset(shape, image, anchor, cls);
        NmsBox box{{static_cast<float>(raw[0]), static_cast<float>(raw[1]), static_cast<float>(raw[2]),
            static_cast<float>(raw[3])}};
        if (anchors == nullptr)
        {
            return Candidate{decodeBox(box, nullptr, config.boxCoding), cls};
        }
        T const* a = anchors + anchorOffset(shape, image, anchor);
        NmsBox const anchorBox{
            {static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2]), static_cast<float>(a[3])}};
        return Candidate{decodeBox(box, &anchorBox, config.boxCoding), cls};
    }
    __device__ bool suppresses(Candidate const& kept, Candidate const& later) const
    {
        return efficientSuppresses(config, kept.box, kept.cls, later.box, later.cls);
    }
};

//! The standard outputs: slot k of each image holds its k-th kept detection, or zeros.
template <typename T>
__global__ void efficientWriteStandard(EfficientNmsConfig config, EfficientNmsShape shape, T const* scores,
    EfficientBuffers buffers, int32_t* numDetections, T* outBoxes, T* outScores, int32_t* outClasses)
{
    int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
    int64_t const slots = static_cast<int64_t>(shape.batch) * config.maxOutputBoxes;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < slots;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const image = i / config.maxOutputBoxes;
        int32_t const k = static_cast<int32_t>(i % config.maxOutputBoxes);
        int32_t const kept = buffers.keptCount[image];
        if (k == 0)
        {
            numDetections[image] = kept;
        }
        if (k >= kept)
        {
            outScores[i] = static_cast<T>(0.F);
            outClasses[i] = 0;
            for (int32_t c = 0; c < 4; ++c)
            {
                outBoxes[i * 4 + c] = static_cast<T>(0.F);
            }
            continue;
        }
        int64_t const at = image * buffers.stride + k;
        int32_t const element = buffers.valuesOut[image * perImage + buffers.keptPositions[at]];
        float const raw = static_cast<float>(scores[image * perImage + element]);
        EfficientCandidate const& c = buffers.keptCandidates[at];
        outScores[i] = static_cast<T>(config.scoreActivation ? sigmoidOf(raw) : raw);
        outClasses[i] = c.cls;
        for (int32_t v = 0; v < 4; ++v)
        {
            outBoxes[i * 4 + v] = static_cast<T>(c.box.v[v]);
        }
    }
}

//! rowStart[b]: the first selected_indices row of image b; rowStart[batch]: the rows selected in all.
__global__ void efficientRowStarts(int32_t const* keptCount, int32_t batch, int32_t* rowStart)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
    {
        int32_t total = 0;
        for (int32_t b = 0; b < batch; ++b)
        {
            rowStart[b] = total;
            total += keptCount[b];
        }
        rowStart[batch] = total;
    }
}

__global__ void efficientWriteRows(
    EfficientNmsConfig config, EfficientNmsShape shape, EfficientBuffers buffers, int32_t* rows)
{
    int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
    int64_t const slots = static_cast<int64_t>(shape.batch) * config.maxOutputBoxes;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < slots;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        auto const image = static_cast<int32_t>(i / config.maxOutputBoxes);
        auto const k = static_cast<int32_t>(i % config.maxOutputBoxes);
        if (k >= buffers.keptCount[image])
        {
            continue;
        }
        int64_t const at = image * buffers.stride + k;
        int32_t const element = buffers.valuesOut[image * perImage + buffers.keptPositions[at]];
        int64_t const row = buffers.rowStart[image] + k;
        rows[row * 3 + 0] = image;
        rows[row * 3 + 1] = element % shape.classes;
        rows[row * 3 + 2] = element / shape.classes;
    }
}

//! Rows past the selected ones repeat the last selected row, or are -1 when none was selected.
__global__ void efficientPadRows(int64_t totalRows, int32_t const* rowStart, int32_t batch, int32_t* rows)
{
    int32_t const written = rowStart[batch];
    for (int64_t row = written + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; row < totalRows;
         row += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        for (int32_t v = 0; v < 3; ++v)
        {
            rows[row * 3 + v] = written == 0 ? -1 : rows[(written - 1) * 3 + v];
        }
    }
}

template <typename T>
cudaError_t runEfficientNms(EfficientNmsConfig const& config, EfficientNmsShape const& shape,
    EfficientNmsDeviceIo const& io, void* workspace, cudaStream_t stream)
{
    WorkspaceLayout layout(workspace);
    EfficientBuffers buffers(layout, shape, config.maxOutputBoxes);
    int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
    int64_t const items = perImage * shape.batch;
    auto const* scores = static_cast<T const*>(io.scores);

    cudaError_t status = cudaMemsetAsync(buffers.counts, 0, sizeof(int32_t) * shape.batch, stream);
    if (status == cudaSuccess && items > 0)
    {
        efficientKeys<T><<<gridBlocks(items), kGridThreads, 0, stream>>>(scores, shape, rawScoreThreshold(config),
            config.backgroundClass, buffers.keysIn, buffers.valuesIn, buffers.counts);
        fillSegmentOffsets<<<gridBlocks(shape.batch + 1), kGridThreads, 0, stream>>>(
            buffers.offsets, shape.batch, static_cast<int32_t>(perImage));
        status = sortSegmentsDescending(buffers.sortTemp, buffers.sortBytes, buffers.keysIn, buffers.keysOut,
            buffers.valuesIn, buffers.valuesOut, static_cast<int32_t>(items), shape.batch, buffers.offsets, stream);
    }
    if (status == cudaSuccess)
    {
        EfficientProblem<T> const problem{config, shape, static_cast<T const*>(io.boxes),
            static_cast<T const*>(io.anchors), buffers.valuesOut, buffers.counts};
        status = launchGreedyNms(problem, shape.batch, config.maxOutputBoxes, buffers.stride, buffers.keptPositions,
            buffers.keptCandidates, buffers.keptCount, stream);
    }
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const slots = static_cast<int64_t>(shape.batch) * config.maxOutputBoxes;
    if (io.selectedIndices == nullptr)
    {
        efficientWriteStandard<T><<<gridBlocks(slots), kGridThreads, 0, stream>>>(config, shape, scores, buffers,
            io.numDetections, static_cast<T*>(io.detectionBoxes), static_cast<T*>(io.detectionScores),
            io.detectionClasses);
        return cudaGetLastError();
    }
    efficientRowStarts<<<1, 1, 0, stream>>>(buffers.keptCount, shape.batch, buffers.rowStart);
    efficientWriteRows<<<gridBlocks(slots), kGridThreads, 0, stream>>>(config, shape, buffers, io.selectedIndices);
    efficientPadRows<<<gridBlocks(slots), kGridThreads, 0, stream>>>(
        slots, buffers.rowStart, shape.batch, io.selectedIndices);
    return cudaGetLastError();
}

} // namespace

size_t efficientNmsWorkspaceSize(EfficientNmsShape const& shape, int32_t maxOutputBoxes)
{
    WorkspaceLayout layout;
    EfficientBuffers const buffers(layout, shape, maxOutputBoxes);
    (void) buffers;
    return layout.size();
}

cudaError_t launchEfficientNms(EfficientNmsConfig const& config, EfficientNmsShape const& shape,
    EfficientNmsDeviceIo const& io, void* workspace, cudaStream_t stream)
{
    if (shape.batch <= 0)
    {
        return cudaSuccess;
    }
    return io.half ? runEfficientNms<__half>(config, shape, io, workspace, stream)
                   : runEfficientNms<float>(config, shape, io, workspace, stream);
}

} // namespace kiln::plugins
