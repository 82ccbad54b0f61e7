#include "reorg_kernels.h"
#include "reorg_index.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

__global__ void reorgKernel(float const* x, float* y, int64_t batch, int64_t c, int64_t h, int64_t w, int64_t s)
{
    int64_t const sample = c * h * w;
    int64_t const count = batch * sample;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const n = i / sample;
        y[i] = x[n * sample + reorgSource(i % sample, c, h, w, s)];
    }
}

} // namespace

cudaError_t launchReorg(
    float const* x, float* y, int64_t batch, int64_t c, int64_t h, int64_t w, int64_t stride, cudaStream_t stream)
{
    int64_t const count = batch * c * h * w;
    if (count == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    reorgKernel<<<blocks, kThreads, 0, stream>>>(x, y, batch, c, h, w, stride);
    return cudaGetLastError();
}

} // namespace kiln::plugins
