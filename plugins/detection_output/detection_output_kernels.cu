#include "detection_output_kernels.h"

#include "batched_nms/batched_nms_kernels.h"
#include "common/grid_size.h"
#include "common/workspace_layout.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{
namespace
{

//! The workspace: decoded boxes and scores in float, BatchedNMS's four outputs, then BatchedNMS's own workspace.
struct DetectionBuffers
{
    float* boxes;
    float* scores;
    int32_t* counts;
    float* nmsedBoxes;
    float* nmsedScores;
    float* nmsedClasses;
    void* nmsWorkspace;

    DetectionBuffers(WorkspaceLayout& layout, BatchedNmsConfig const& config, SsdShape const& shape)
    {
        int64_t const perImage = int64_t{shape.priors};
        int64_t const slots = int64_t{shape.batch} * config.keepTopK;
        boxes = layout.take<float>(shape.batch * perImage * shape.locClasses * 4);
        scores = layout.take<float>(shape.batch * perImage * shape.classes);
        counts = layout.take<int32_t>(shape.batch);
        nmsedBoxes = layout.take<float>(slots * 4);
        nmsedScores = layout.take<float>(slots);
        nmsedClasses = layout.take<float>(slots);
        nmsWorkspace = layout.take<uint8_t>(
            batchedNmsWorkspaceSize(config, BatchedNmsShape{shape.batch, shape.priors, shape.classes}));
    }
};

//! One thread per (image, prior, loc class): the decoded box in float.
template <typename T>
__global__ void decodeSsdBoxes(
    T const* loc, T const* prior, SsdShape shape, SsdCode code, bool varianceEncodedInTarget, float* boxes)
{
    int64_t const count = int64_t{shape.batch} * shape.priors * shape.locClasses;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const p = (i / shape.locClasses) % shape.priors;
        int64_t const image = i / (int64_t{shape.locClasses} * shape.priors);
        T const* priors = prior + ssdPriorOffset(shape, image);
        float priorBox[4];
        float variance[4];
        float encoded[4];
        for (int32_t v = 0; v < 4; ++v)
        {
            priorBox[v] = static_cast<float>(priors[p * 4 + v]);
            variance[v] = static_cast<float>(priors[(shape.priors + p) * 4 + v]);
            encoded[v] = static_cast<float>(loc[i * 4 + v]);
        }
        decodeSsdBox(code, varianceEncodedInTarget, priorBox, variance, encoded, boxes + i * 4);
    }
}

template <typename T>
__global__ void prepareScores(T const* conf, int64_t count, bool sigmoid, float* scores)
{
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    {
        float const score = static_cast<float>(conf[i]);
        scores[i] = sigmoid ? 1.F / (1.F + expf(-score)) : score;
    }
}

//! One thread per output row: [image, label, score, xmin, ymin, xmax, ymax] from BatchedNMS's outputs (whose
//! empty slots hold class -1 and zeros, the row NVIDIA writes for them too).
template <typename T>
__global__ void packDetections(
    DetectionBuffers buffers, int32_t batch, int32_t keepTopK, T* detections, int32_t* keepCount)
{
    int64_t const rows = int64_t{batch} * keepTopK;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const image = i / keepTopK;
        T* row = detections + i * 7;
        row[0] = static_cast<T>(static_cast<float>(image));
        row[1] = static_cast<T>(buffers.nmsedClasses[i]);
        row[2] = static_cast<T>(buffers.nmsedScores[i]);
        for (int32_t v = 0; v < 4; ++v)
        {
            row[3 + v] = static_cast<T>(buffers.nmsedBoxes[i * 4 + v]);
        }
        if (i % keepTopK == 0)
        {
            keepCount[image] = buffers.counts[image];
        }
    }
}

template <typename T>
cudaError_t runDetectionOutput(DetectionOutputParams const& params, BatchedNmsConfig const& config,
    SsdShape const& shape, DetectionOutputDeviceIo const& io, void* workspace, cudaStream_t stream)
{
    WorkspaceLayout layout(workspace);
    DetectionBuffers const buffers(layout, config, shape);
    int64_t const boxCount = int64_t{shape.batch} * shape.priors * shape.locClasses;
    int64_t const scoreCount = int64_t{shape.batch} * shape.priors * shape.classes;
    decodeSsdBoxes<T><<<gridBlocks(boxCount), kGridThreads, 0, stream>>>(static_cast<T const*>(io.loc),
        static_cast<T const*>(io.prior), shape, static_cast<SsdCode>(params.codeType), params.varianceEncodedInTarget,
        buffers.boxes);
    prepareScores<T><<<gridBlocks(scoreCount), kGridThreads, 0, stream>>>(
        static_cast<T const*>(io.conf), scoreCount, params.confSigmoid, buffers.scores);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return status;
    }
    BatchedNmsDeviceIo nms{};
    nms.boxes = buffers.boxes;
    nms.scores = buffers.scores;
    nms.half = false;
    nms.numDetections = buffers.counts;
    nms.nmsedBoxes = buffers.nmsedBoxes;
    nms.nmsedScores = buffers.nmsedScores;
    nms.nmsedClasses = buffers.nmsedClasses;
    status = launchBatchedNms(
        config, BatchedNmsShape{shape.batch, shape.priors, shape.classes}, nms, buffers.nmsWorkspace, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const rows = int64_t{shape.batch} * config.keepTopK;
    packDetections<T><<<gridBlocks(rows), kGridThreads, 0, stream>>>(
        buffers, shape.batch, config.keepTopK, static_cast<T*>(io.detections), io.keepCount);
    return cudaGetLastError();
}

} // namespace

size_t detectionOutputWorkspaceSize(BatchedNmsConfig const& config, SsdShape const& shape)
{
    WorkspaceLayout layout;
    DetectionBuffers const buffers(layout, config, shape);
    (void) buffers;
    return layout.size();
}

cudaError_t launchDetectionOutput(DetectionOutputParams const& params, BatchedNmsConfig const& config,
    SsdShape const& shape, DetectionOutputDeviceIo const& io, void* workspace, cudaStream_t stream)
{
    if (shape.batch <= 0)
    {
        return cudaSuccess;
    }
    return io.half ? runDetectionOutput<__half>(params, config, shape, io, workspace, stream)
                   : runDetectionOutput<float>(params, config, shape, io, workspace, stream);
}

} // namespace kiln::plugins
