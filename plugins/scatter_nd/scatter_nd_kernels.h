// The CUDA side of ScatterND (scatter_nd_kernels.cu).
#pragma once

#include "scatter_nd_math.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::plugins
{

//! output = data with every slice of `updates` written where `indices` (INT32, or INT64 where `wideIndices`) say;
//! elements of `elementSize` bytes (1, 2, 4 or 8). A tuple with an index out of range is skipped (a kernel cannot
//! report it); of two tuples naming one slice, either may win. Where `slots` (one int32 per slice of data, in the
//! plugin's workspace) is given, the output is a new tensor and slices are whole 16-byte vectors, each output slice
//! is copied once from data or from its update (three launches: the slots are cleared, claimed by the tuples, then
//! every slice gathered); else data is copied and the updates written over it. Returns the first failing status.
cudaError_t launchScatterNd(scatter_nd::Geometry const& geometry, int64_t dataCount, size_t elementSize,
    void const* data, void const* indices, bool wideIndices, void const* updates, void* output, int32_t* slots,
    cudaStream_t stream);

} // namespace kiln::plugins
