// The CUDA side of BatchedNMS_TRT and BatchedNMSDynamic_TRT (batched_nms_kernels.cu).
#pragma once

#include "batched_nms_math.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::plugins
{

struct BatchedNmsDeviceIo
{
    void const* boxes{nullptr};
    void const* scores{nullptr};
    bool half{false}; //!< FP16 inputs and float outputs, else FP32
    int32_t* numDetections{nullptr};
    void* nmsedBoxes{nullptr};
    void* nmsedScores{nullptr};
    void* nmsedClasses{nullptr};
};

//! Workspace bytes launchBatchedNms needs for `shape`.
size_t batchedNmsWorkspaceSize(BatchedNmsConfig const& config, BatchedNmsShape const& shape);

//! Per-class sort (CUB), per-class greedy NMS, per-image sort of the survivors (CUB) and the outputs.
cudaError_t launchBatchedNms(BatchedNmsConfig const& config, BatchedNmsShape const& shape, BatchedNmsDeviceIo const& io,
    void* workspace, cudaStream_t stream);

} // namespace kiln::plugins
