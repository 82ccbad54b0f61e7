// The CUDA backend's one kernel for chains of point-wise steps over broadcast floating-point inputs (pointwise.cu):
// it runs the fused point-wise layer (network::PointwiseParams) and the element-wise layer's floating-point arithmetic,
// a chain of one step.
#pragma once

#include "backend/cuda/layer_kernels.h"
#include "network/layers/pointwise.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kiln::cuda
{

struct PointwiseOptions
{
    //! A ReLU after the last step (x < 0 becomes 0; a NaN stays NaN), as a fused convolution's residual sum needs.
    bool reluAfter{false};
    //! Refuse inputs and outputs whose storage format the kernel would not index as the output's (the fused chain's
    //! rule). The element-wise layer leaves it off: it indexes every tensor row-major, whatever its format, as its
    //! general kernel always did.
    bool checkLayouts{true};
};

//! Runs `stepCount` steps (well formed over the inputs, at most kMaxPointwiseSteps over kMaxPointwiseInputs) once per
//! output element; the inputs (views given by pointer, so that a caller holding them copies none: a copy allocates its
//! shape, and enqueueV3 allocates nothing) broadcast numpy-style, at the output's rank, into `output`'s shape. Every
//! tensor is FP32, FP16 or BF16; each step computes in float as the layer it stands for (pointwise_math.cuh). Throws
//! std::invalid_argument before queuing anything for a program, type or shape it does not take. The output may be an
//! input of its own shape.
void pointwiseOnDevice(network::PointwiseStep const* steps, size_t stepCount, ConstTensorView const* const* inputs,
    size_t inputCount, TensorView const& output, PointwiseOptions const& options, cudaStream_t stream);

} // namespace kiln::cuda
