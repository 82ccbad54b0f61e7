// INormalizationLayer on the GPU, as the CPU reference (backend/cpu/kernels/nn/normalization.h):
//   output = (input - mean) / sqrt(variance + epsilon) * scale + bias
// with the mean and biased variance of each group of elements that differ only along the axes of the `axes` mask;
// with nbGroups > 1 axis 1's channels split into nbGroups consecutive groups, each normalized on its own (whether
// or not axis 1 is in the mask). Instance, layer and group normalization are all this one kernel.
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! All four tensors FP32, FP16 or BF16 (each its own). scale and bias have the input's rank and broadcast to it
//! (extents equal or 1); with groups, extent nbGroups on axis 1 gives one weight per group. Statistics and the
//! affine step are computed in double, as on the CPU, whatever the layer's compute precision asks for (a
//! precision above the request). Output may alias the input. Throws std::invalid_argument where the CPU reference
//! refuses the shapes, axes or types.
void normalizationOnDevice(uint32_t axes, float epsilon, int64_t nbGroups, ConstTensorView const& input,
    ConstTensorView const& scale, ConstTensorView const& bias, TensorView const& output,
    cudaStream_t stream);

} // namespace kiln::cuda
