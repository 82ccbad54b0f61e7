// The CUDA side of Region_TRT (region_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! Region over FP32 [boxes, coords + 1 + classes, spatial] (boxes = batch * num): logistic of entries 0, 1 and
//! `coords`, softmax over the `classes` entries after it, the rest copied. Returns the launch's status.
cudaError_t launchRegion(
    float const* x, float* y, int64_t boxes, int32_t coords, int32_t classes, int64_t spatial, cudaStream_t stream);

} // namespace kiln::plugins
