// IShuffleLayer on the GPU: first transpose, reshape, second transpose, as the CPU reference
// (backend/cpu/kernels/tensor/shuffle.h). The runtime has already resolved the output shape
// (placeholders, -1, a shape-tensor input), so the reshape is only a reinterpretation.
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace kiln::cuda
{

//! `firstTranspose` has one entry per input dim, `secondTranspose` one per output dim (out.shape[i] =
//! reshaped[secondTranspose[i]]). Every byte-addressable type; input and output share it. One kernel, or one
//! device-to-device copy when neither transpose moves anything.
void shuffleOnDevice(std::vector<int32_t> const& firstTranspose, std::vector<int32_t> const& secondTranspose,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
