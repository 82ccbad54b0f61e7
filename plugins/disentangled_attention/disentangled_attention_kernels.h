// The CUDA side of DisentangledAttention_TRT (disentangled_attention_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! result[i, q, k] = factor (c2c[i, q, k] + c2p[i, q, c] + p2c[i, k, c]), c = relativeColumn(q - k), for i < count,
//! q, k < sequence; c2p and p2c are [count, sequence, width]. FP32, or FP16 where `half`.
cudaError_t launchDisentangledAttention(void const* c2c, void const* c2p, void const* p2c, void* result, bool half,
    int64_t count, int64_t sequence, int32_t width, int32_t span, float factor, cudaStream_t stream);

} // namespace kiln::plugins
