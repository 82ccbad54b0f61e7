// The CUDA side of the normalization plugins (group_norm_kernels.cu).
#pragma once

#include "group_norm_math.h"

#include <cuda_runtime_api.h>

namespace kiln::plugins
{

//! y = the group normalization of x (FP32, or FP16 where `half`); affine's scale and bias are FP32 device memory.
//! One pass where the rows fit on chip (group_norm_on_chip.h); else blocks as groupNormSplit says, and `workspace`
//! holds groupNormWorkspaceSize(shape) bytes. Returns the launch's status.
cudaError_t launchGroupNorm(void const* x, void* y, bool half, GroupNormShape const& shape,
    GroupNormAffine const& affine, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins
