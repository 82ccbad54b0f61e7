// IConcatenationLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/concatenation.h).
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace kiln::cuda
{

//! Joins `inputs` along `axis` (negative counts from the end). Inputs agree with the output on every other dim and
//! share its byte-addressable type; empty inputs are allowed. One kernel per 16 inputs.
void concatenationOnDevice(int32_t axis, std::vector<ConstTensorView> const& inputs,
    TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
