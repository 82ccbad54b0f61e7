// The CUDA side of EfficientNMS_TRT and EfficientNMS_ONNX_TRT (efficient_nms_kernels.cu).
#pragma once

#include "efficient_nms_math.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::plugins
{

//! One run's device tensors: the standard outputs, or selectedIndices for the ONNX form (the others null).
struct EfficientNmsDeviceIo
{
    void const* boxes{nullptr};
    void const* scores{nullptr};
    void const* anchors{nullptr};
    bool half{false}; //!< FP16 inputs (and float outputs), else FP32
    int32_t* numDetections{nullptr};
    void* detectionBoxes{nullptr};
    void* detectionScores{nullptr};
    int32_t* detectionClasses{nullptr};
    int32_t* selectedIndices{nullptr};
};

//! Workspace bytes launchEfficientNms needs for `shape`.
size_t efficientNmsWorkspaceSize(EfficientNmsShape const& shape, int32_t maxOutputBoxes);

//! Filter, sort (CUB), greedy NMS and the outputs, on `stream`. Returns the first launch error.
cudaError_t launchEfficientNms(EfficientNmsConfig const& config, EfficientNmsShape const& shape,
    EfficientNmsDeviceIo const& io, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins
