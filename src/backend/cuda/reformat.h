// The CUDA backend's reformatting: a tensor copied into another type, another format
// (kLINEAR <-> kHWC), or both, as the CPU reference's reformat() does
// (backend/cpu/kernels/tensor/reformat.h).
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! `input` into `output` on `stream`. A change of format takes FP32, FP16 and BF16 tensors of at least three axes;
//! a change of type alone, whatever castOnDevice takes. Throws std::invalid_argument otherwise.
void reformatOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

//! Copies kHWC `input` [N, C, spatial...] into `output`, laid out as the same tensor with `channels` (at least C)
//! channels per pixel, those beyond C zero: the channel padding FP16 tensor-core convolutions want.
void padChannelsOnDevice(ConstTensorView const& input, void* output, int64_t channels, cudaStream_t stream);

} // namespace kiln::cuda
