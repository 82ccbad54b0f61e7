// IScaleLayer on the GPU, as the CPU reference (backend/cpu/kernels/nn/scale.h):
// output = (input * scale + shift) ^ power with uniform, per-channel or per-element weights.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Device arrays of float weights; a count of 0 means the weight is absent (shift 0, scale 1, no power).
struct DeviceScaleWeights
{
    float const* shift{nullptr};
    int64_t shiftCount{0};
    float const* scale{nullptr};
    int64_t scaleCount{0};
    float const* power{nullptr};
    int64_t powerCount{0};
};

//! FP32/FP16/BF16 input and output of one shape, computed in float. Each present weight must hold the count the
//! mode needs (1; the channel axis' extent; the volume from the channel axis on). Throws std::invalid_argument
//! otherwise.
void scaleOnDevice(nvinfer1::ScaleMode mode, int32_t channelAxis, DeviceScaleWeights const& weights,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
