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

//! The scales of the INT8 form's tensors.
struct Int8Scales
{
    float input;
    float skip;
    float output;
};

//! The INT8 form: each of `rows` rows of `width` INT8 values, `rowStride` apart (the row padded to the vector width
//! of kCHW4 or kCHW32), dequantized (input and skip), normalized as launchSkipLayerNorm does and quantized with the
//! output's scale; the padding is left as it is. Returns the launch's status.
cudaError_t launchSkipLayerNormInt8(int8_t const* input, int8_t const* skip, int8_t* output, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, int64_t rowStride, Int8Scales scales,
    float epsilon, cudaStream_t stream);

} // namespace kiln::plugins
