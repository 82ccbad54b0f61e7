// The CUDA side of CustomGeluPluginDynamic (gelu_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! y = gelu(x + bias[i % biasCount]) over `count` elements of FP32 (or FP16 where `half`); bias is FP32 device
//! memory, or null. Returns the launch's status.
cudaError_t launchGelu(
    void const* x, void* y, bool half, float const* bias, int64_t biasCount, int64_t count, cudaStream_t stream);

} // namespace kiln::plugins
