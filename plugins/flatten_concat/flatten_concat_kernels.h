// The CUDA side of FlattenConcat_TRT (flatten_concat_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! Copies each of `batch` images' `values` FP32 elements of `input` into `output` rows of `rowValues` elements,
//! starting at element `offset` of each row. Returns the copy's status.
cudaError_t launchFlattenConcatCopy(float const* input, float* output, int64_t batch, int64_t values, int64_t rowValues,
    int64_t offset, cudaStream_t stream);

} // namespace kiln::plugins
