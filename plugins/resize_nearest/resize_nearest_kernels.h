// The CUDA side of ResizeNearest_TRT (resize_nearest_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! out[p][oy][ox] = in[p][int(oy / scale)][int(ox / scale)] over `planes` FP32 planes of inH x inW in and
//! outH x outW out. Returns the launch's status.
cudaError_t launchResizeNearest(float const* in, float* out, int64_t planes, int32_t inH, int32_t inW, int32_t outH,
    int32_t outW, float scale, cudaStream_t stream);

} // namespace kiln::plugins
