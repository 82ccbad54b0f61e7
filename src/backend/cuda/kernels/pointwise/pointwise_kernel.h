// The CUDA backend's one kernel for chains of point-wise steps over broadcast floating-point inputs (pointwise.cu):
// it runs the fused point-wise layer (network::PointwiseParams) and the element-wise layer's floating-point arithmetic,
// a chain of one step.
#pragma once

#include "backend/cuda/layer_kernels.h"
#include "network/fused/pointwise.h"

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

namespace pointwise
{
struct Program;
} // namespace pointwise

//! The grid the kernel runs `program` (pointwise::makeProgram) on.
unsigned pointwiseBlocks(pointwise::Program const& program);

//! Queues `program` on `blocks` blocks (pointwiseBlocks), nothing where it has no element. The two are worked out
//! once per shape and addresses by the layers that run the kernel (prepared_kernel_layer.h). Throws
//! std::runtime_error if CUDA refuses the launch.
void launchPointwise(pointwise::Program const& program, unsigned blocks, cudaStream_t stream);

} // namespace kiln::cuda
