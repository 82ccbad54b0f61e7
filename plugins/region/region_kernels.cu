#include "region_kernels.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

__device__ float logistic(float x)
{
    return 1.F / (1.F + expf(-x));
}

// One thread per (box, grid cell): its entries lie `spatial` apart.
__global__ void regionKernel(float const* x, float* y, int64_t boxes, int32_t coords, int32_t classes, int64_t spatial)
{
    int64_t const entries = coords + 1 + classes;
    int64_t const count = boxes * spatial;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const base = (i / spatial) * entries * spatial + i % spatial;
        float const* in = x + base;
        float* out = y + base;
        for (int32_t e = 0; e <= coords; ++e)
        {
            float const value = in[e * spatial];
            out[e * spatial] = (e < 2 || e == coords) ? logistic(value) : value;
        }
        float const* scores = in + (coords + 1) * spatial;
        float* probabilities = out + (coords + 1) * spatial;
        float largest = scores[0];
        for (int32_t c = 1; c < classes; ++c)
        {
            largest = fmaxf(largest, scores[c * spatial]);
        }
        float sum = 0.F;
        for (int32_t c = 0; c < classes; ++c)
        {
            float const e = expf(scores[c * spatial] - largest);
            probabilities[c * spatial] = e;
            sum += e;
        }
        for (int32_t c = 0; c < classes; ++c)
        {
            probabilities[c * spatial] /= sum;
        }
    }
}

} // namespace

cudaError_t launchRegion(
    float const* x, float* y, int64_t boxes, int32_t coords, int32_t classes, int64_t spatial, cudaStream_t stream)
{
    int64_t const count = boxes * spatial;
    if (count == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    regionKernel<<<blocks, kThreads, 0, stream>>>(x, y, boxes, coords, classes, spatial);
    return cudaGetLastError();
}

} // namespace kiln::plugins
