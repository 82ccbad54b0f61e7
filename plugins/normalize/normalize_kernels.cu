#include "normalize_kernels.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

int constexpr kThreads = 256;

// One thread per (sample, position): its channels lie `spatial` apart, and neighbouring threads read neighbouring
// positions.
__global__ void normalizePositions(float const* x, float* y, float const* scales, bool channelShared, float eps,
    int64_t batch, int64_t channels, int64_t spatial)
{
    int64_t const count = batch * spatial;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const base = (i / spatial) * channels * spatial + i % spatial;
        float sum = 0.F;
        for (int64_t c = 0; c < channels; ++c)
        {
            float const v = x[base + c * spatial];
            sum += v * v;
        }
        float const inverse = rsqrtf(sum + eps);
        for (int64_t c = 0; c < channels; ++c)
        {
            y[base + c * spatial] = x[base + c * spatial] * inverse * scales[channelShared ? 0 : c];
        }
    }
}

// One block per sample: the block sums the squares of the whole sample, then scales it.
__global__ void normalizeSamples(
    float const* x, float* y, float const* scales, bool channelShared, float eps, int64_t channels, int64_t spatial)
{
    __shared__ float partial[kThreads];
    int64_t const size = channels * spatial;
    float const* in = x + blockIdx.x * size;
    float* out = y + blockIdx.x * size;
    float sum = 0.F;
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x)
    {
        sum += in[i] * in[i];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2)
    {
        if (threadIdx.x < stride)
        {
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        }
        __syncthreads();
    }
    float const inverse = rsqrtf(partial[0] + eps);
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x)
    {
        out[i] = in[i] * inverse * scales[channelShared ? 0 : i / spatial];
    }
}

} // namespace

cudaError_t launchNormalize(float const* x, float* y, float const* scales, bool acrossSpatial, bool channelShared,
    float eps, int64_t batch, int64_t channels, int64_t spatial, cudaStream_t stream)
{
    if (batch * channels * spatial == 0)
    {
        return cudaSuccess;
    }
    if (acrossSpatial)
    {
        normalizeSamples<<<static_cast<unsigned>(batch), kThreads, 0, stream>>>(
            x, y, scales, channelShared, eps, channels, spatial);
    }
    else
    {
        int64_t const count = batch * spatial;
        auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
        normalizePositions<<<blocks, kThreads, 0, stream>>>(x, y, scales, channelShared, eps, batch, channels, spatial);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
