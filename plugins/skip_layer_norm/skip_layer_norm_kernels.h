// The CUDA side of CustomSkipLayerNormPluginDynamic (skip_layer_norm_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! y = LayerNorm(input + skip + bias) * gamma + beta over each of `rows` rows of `width` elements, FP32 (or FP16
//! where `half`); gamma, beta and bias (null for none) are FP32 device memory. Returns the launch's status.
cudaError_t launchSkipLayerNorm(void const* input, void const* skip, void* output, bool half, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, float epsilon, cudaStream_t stream);

} // namespace kiln::plugins
