#include "ms_deform_attn_kernels.h"

#include "ms_deform_attn_math.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// Consecutive threads take consecutive channels d, so a warp reads each sampled pixel's channels together.
template <typename T>
__global__ void msDeformAttnKernel(MsDeformAttnShape shape, T const* value, int32_t const* spatialShapes,
    int32_t const* levelStart, T const* locations, T const* weights, T* output)
{
    int64_t const count = shape.batch * shape.queries * shape.heads * shape.channels;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const d = i % shape.channels;
        int64_t const m = (i / shape.channels) % shape.heads;
        int64_t const q = (i / (shape.channels * shape.heads)) % shape.queries;
        int64_t const n = i / (shape.channels * shape.heads * shape.queries);
        output[i] = static_cast<T>(
            msDeformAttnElement(shape, value, spatialShapes, levelStart, locations, weights, n, q, m, d));
    }
}

} // namespace

cudaError_t launchMsDeformAttn(MsDeformAttnShape const& shape, bool half, void const* value,
    int32_t const* spatialShapes, int32_t const* levelStart, void const* locations, void const* weights, void* output,
    cudaStream_t stream)
{
    int64_t const count = shape.batch * shape.queries * shape.heads * shape.channels;
    if (count == 0)
    {
        return cudaSuccess;
    }
    int32_t constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, int64_t{1} << 20));
    if (half)
    {
        msDeformAttnKernel<<<blocks, kThreads, 0, stream>>>(shape, static_cast<__half const*>(value), spatialShapes,
            levelStart, static_cast<__half const*>(locations), static_cast<__half const*>(weights),
            static_cast<__half*>(output));
    }
    else
    {
        msDeformAttnKernel<<<blocks, kThreads, 0, stream>>>(shape, static_cast<float const*>(value), spatialShapes,
            levelStart, static_cast<float const*>(locations), static_cast<float const*>(weights),
            static_cast<float*>(output));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
