// The CUDA kernel of MultiscaleDeformableAttnPlugin_TRT (ms_deform_attn_kernels.cu).
#pragma once

#include "ms_deform_attn_params.h"

#include <cuda_runtime_api.h>

namespace kiln::plugins
{

//! One thread per output element [N, Lq, M, D]; value, locations, weights and output FP32 (FP16 where `half`).
//! Returns the launch's status.
cudaError_t launchMsDeformAttn(MsDeformAttnShape const& shape, bool half, void const* value,
    int32_t const* spatialShapes, int32_t const* levelStart, void const* locations, void const* weights, void* output,
    cudaStream_t stream);

} // namespace kiln::plugins
