// The one-pass CUDA kernel of the normalization plugins (group_norm_on_chip.cu), for rows that fit on chip.
#pragma once

#include "group_norm_math.h"

#include <cuda_runtime_api.h>

namespace kiln::plugins
{

//! y = the group normalization of x, reading x once: each row (an image's group of channels) is staged in shared
//! memory by one block, or by a cluster of up to 8 blocks (32 KB each) that exchange their partial sums through
//! distributed shared memory. Returns cudaErrorNotSupported, launching nothing, where the shape does not suit it (a
//! row over 8 blocks' 32 KB, rows that need a cluster in an input that fits half the L2, channels whose size is not
//! a whole number of 16-byte vectors, unaligned tensors, or a device without thread block clusters):
//! launchGroupNorm then takes its two-pass kernels.
cudaError_t launchGroupNormOnChip(
    void const* x, void* y, bool half, GroupNormShape const& shape, GroupNormAffine const& affine, cudaStream_t stream);

} // namespace kiln::plugins
