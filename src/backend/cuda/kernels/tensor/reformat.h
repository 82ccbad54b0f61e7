// The CUDA backend's reformatting: a tensor copied into another type, another format
// (kLINEAR <-> kHWC, either into kHWC8, kLINEAR <-> kCHW4 and kCHW32), or both, as the CPU reference's reformat() does
// (backend/cpu/kernels/tensor/reformat.h).
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! `input` into `output` on `stream`. A change between kLINEAR, kHWC and kHWC8 takes FP32, FP16 and BF16 tensors of
//! at least three axes (and INT8 ones between kLINEAR and kHWC, in one type); between kLINEAR and kCHW4 or kCHW32
//! (plugins' INT8 layouts), tensors of at least three axes in one type; a change of type alone, whatever castOnDevice
//! takes. Throws std::invalid_argument otherwise.
void reformatOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
