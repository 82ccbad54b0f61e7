// The CUDA side of Normalize_TRT (normalize_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! y = x / sqrt(sum of x^2 + eps) * scale[c] over FP32 [batch, channels, spatial]; the sum runs over each sample
//! (acrossSpatial) or over the channels of each position. `scales` (device memory) holds one value when
//! `channelShared`, else one per channel. Returns the launch's status.
cudaError_t launchNormalize(float const* x, float* y, float const* scales, bool acrossSpatial, bool channelShared,
    float eps, int64_t batch, int64_t channels, int64_t spatial, cudaStream_t stream);

} // namespace kiln::plugins
