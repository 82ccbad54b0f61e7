#include "resize_nearest_kernels.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One thread per output element (grid-stride): each reads its nearest source element.
__global__ void resizeNearestKernel(
    float const* in, float* out, int64_t total, int32_t inH, int32_t inW, int32_t outH, int32_t outW, float scale)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        auto const ox = static_cast<int32_t>(i % outW);
        auto const oy = static_cast<int32_t>((i / outW) % outH);
        int64_t const plane = i / (static_cast<int64_t>(outW) * outH);
        // int(o / scale) in float, as on the host; kept inside the input.
        int32_t const iy = min(static_cast<int32_t>(static_cast<float>(oy) / scale), inH - 1);
        int32_t const ix = min(static_cast<int32_t>(static_cast<float>(ox) / scale), inW - 1);
        out[i] = in[(plane * inH + iy) * inW + ix];
    }
}

} // namespace

cudaError_t launchResizeNearest(float const* in, float* out, int64_t planes, int32_t inH, int32_t inW, int32_t outH,
    int32_t outW, float scale, cudaStream_t stream)
{
    int64_t const total = planes * outH * outW;
    if (total == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535 * 8));
    resizeNearestKernel<<<blocks, kThreads, 0, stream>>>(in, out, total, inH, inW, outH, outW, scale);
    return cudaGetLastError();
}

} // namespace kiln::plugins
