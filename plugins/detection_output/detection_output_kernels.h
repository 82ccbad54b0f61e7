// The CUDA side of NMS_TRT and NMSDynamic_TRT (detection_output_kernels.cu).
#pragma once

#include "batched_nms/batched_nms_math.h"
#include "detection_output_params.h"
#include "ssd_box_decode.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kiln::plugins
{

struct DetectionOutputDeviceIo
{
    void const* loc{nullptr};
    void const* conf{nullptr};
    void const* prior{nullptr};
    bool half{false}; //!< FP16 inputs and detections, else FP32
    void* detections{nullptr};
    int32_t* keepCount{nullptr};
};

//! Workspace bytes launchDetectionOutput needs.
size_t detectionOutputWorkspaceSize(BatchedNmsConfig const& config, SsdShape const& shape);

//! Decodes the boxes and prepares the scores (in float), runs BatchedNMS's kernels on them and writes the
//! detections [B, 1, keepTopK, 7] and keep counts.
cudaError_t launchDetectionOutput(DetectionOutputParams const& params, BatchedNmsConfig const& config,
    SsdShape const& shape, DetectionOutputDeviceIo const& io, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins
