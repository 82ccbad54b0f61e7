// IOneHotLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/one_hot.h): the indices' shape with a
// dim of extent depth inserted at `axis`; element j along it is values[1] ("on") where the index (negative ones
// counting from depth) is j, else values[0] ("off"). Indices outside [-depth, depth) give an all-off row.
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Indices INT32 or INT64; values two elements of the output's type, of any byte-addressable type (copied as bytes).
//! The depth is the output's extent along the axis: the layer's depth input is a shape tensor whose value already
//! decided that shape, so the kernel does not read it. Throws std::invalid_argument for shapes and types the CPU
//! reference refuses.
void oneHotOnDevice(int32_t axis, ConstTensorView const& indices, ConstTensorView const& values,
    TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
