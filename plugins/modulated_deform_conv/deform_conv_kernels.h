// The CUDA kernels of ModulatedDeformConv2d (deform_conv_kernels.cu); the GEMM between them is cuBLAS's
// (deform_conv_device.cpp). Each returns the launch's status.
#pragma once

#include "deform_conv_params.h"

#include <cuda_runtime_api.h>

namespace kiln::plugins
{

//! The columns matrices [C * KH * KW, OH * OW] of `images` images from `firstImage` on, one after the other, into
//! `columns`; x, offset, mask and the columns are FP32, or FP16 where `half` (each element sampled in float).
cudaError_t launchDeformColumns(DeformConvShape const& shape, bool half, void const* x, void const* offset,
    void const* mask, int64_t firstImage, int64_t images, void* columns, cudaStream_t stream);

//! The outputs [O, OH * OW] of `images` consecutive images = product + bias[o] (bias null: none), stored as FP32 or
//! FP16 (`half`); `product` may be the output itself (FP32).
cudaError_t launchDeformEpilogue(DeformConvShape const& shape, int64_t images, bool half, float const* product,
    void const* bias, void* output, cudaStream_t stream);

} // namespace kiln::plugins
