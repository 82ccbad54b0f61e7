#include "group_norm_kernels.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

int32_t constexpr kThreads = 256;

//! The sum of `value` over the block; every thread gets it. `shared` holds kThreads / 32 floats.
__device__ float blockSum(float value, float* shared)
{
    for (int32_t offset = 16; offset > 0; offset /= 2)
    {
        value += __shfl_down_sync(0xffffffffU, value, offset);
    }
    int32_t const lane = threadIdx.x % 32;
    int32_t const warp = threadIdx.x / 32;
    if (lane == 0)
    {
        shared[warp] = value;
    }
    __syncthreads();
    if (warp == 0)
    {
        value = lane < kThreads / 32 ? shared[lane] : 0.F;
        for (int32_t offset = 16; offset > 0; offset /= 2)
        {
            value += __shfl_down_sync(0xffffffffU, value, offset);
        }
        if (lane == 0)
        {
            shared[0] = value;
        }
    }
    __syncthreads();
    float const total = shared[0];
    __syncthreads(); // the next call writes shared again
    return total;
}

// x's normalized, scaled, shifted (and leaky-ReLU'd where asked) value, in channel `channel`.
template <typename T>
__device__ T normalized(T x, int64_t channel, float mean, float invStd, GroupNormAffine const& affine)
{
    float value = affine.scale[channel] * ((static_cast<float>(x) - mean) * invStd) + affine.bias[channel];
    if (affine.leakyRelu && value < 0.F)
    {
        value *= affine.alpha;
    }
    return static_cast<T>(value);
}

// One block per row (an image's group of channels, contiguous in memory): its mean, then the mean of squared
// deviations (two passes, as the host kernel), then the normalized, scaled and shifted output.
template <typename T>
__global__ void __launch_bounds__(kThreads) groupNormKernel(
    T const* x, T* y, GroupNormShape shape, GroupNormAffine affine)
{
    __shared__ float shared[kThreads / 32];
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const rows = shape.batch * shape.groups;
    float const count = static_cast<float>(rowLength);
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        T const* in = x + row * rowLength;
        T* out = y + row * rowLength;
        float sum = 0.F;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            sum += static_cast<float>(in[i]);
        }
        float const mean = blockSum(sum, shared) / count;
        float squares = 0.F;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            float const deviation = static_cast<float>(in[i]) - mean;
            squares += deviation * deviation;
        }
        float const invStd = rsqrtf(blockSum(squares, shared) / count + affine.epsilon);
        int64_t const firstChannel = (row % shape.groups) * channelsPerGroup;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            out[i] = normalized<T>(in[i], firstChannel + i / shape.spatial, mean, invStd, affine);
        }
    }
}

// A chunk's (or several chunks') element count, mean and sum of squared deviations from that mean.
struct Moments
{
    float count;
    float mean;
    float m2;
};

// Chan's combination of two disjoint parts' moments: exact, so chunking does not change the variance's accuracy.
__device__ Moments combine(Moments a, Moments b)
{
    float const count = a.count + b.count;
    if (count == 0.F)
    {
        return a;
    }
    float const delta = b.mean - a.mean;
    float const share = b.count / count;
    return Moments{count, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.count * share};
}

// Pass 1 of the split path (GroupNormSplit): block (chunk, row) writes its chunk's moments, computed in two passes
// over the chunk as the one-block kernel does over a row.
template <typename T>
__global__ void __launch_bounds__(kThreads) chunkMomentsKernel(
    T const* x, int64_t rowLength, int64_t chunkLength, Moments* moments)
{
    __shared__ float shared[kThreads / 32];
    int64_t const row = blockIdx.y;
    int64_t const begin = blockIdx.x * chunkLength;
    int64_t const end = min(rowLength, begin + chunkLength);
    T const* in = x + row * rowLength;
    float sum = 0.F;
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads)
    {
        sum += static_cast<float>(in[i]);
    }
    float const count = static_cast<float>(max(end - begin, int64_t{0}));
    float const mean = count > 0.F ? blockSum(sum, shared) / count : 0.F;
    float squares = 0.F;
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads)
    {
        float const deviation = static_cast<float>(in[i]) - mean;
        squares += deviation * deviation;
    }
    float const m2 = blockSum(squares, shared);
    if (threadIdx.x == 0)
    {
        moments[row * gridDim.x + blockIdx.x] = Moments{count, mean, m2};
    }
}

// The moments of a whole row from its chunks': each thread combines a strided share, then a tree over the block
// (a fixed order, so the result does not vary from run to run).
__device__ Moments rowMoments(Moments const* chunks, int32_t nbChunks, Moments* shared)
{
    Moments mine{0.F, 0.F, 0.F};
    for (int32_t c = static_cast<int32_t>(threadIdx.x); c < nbChunks; c += kThreads)
    {
        mine = combine(mine, chunks[c]);
    }
    shared[threadIdx.x] = mine;
    __syncthreads();
    for (int32_t stride = kThreads / 2; stride > 0; stride /= 2)
    {
        if (static_cast<int32_t>(threadIdx.x) < stride)
        {
            shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + stride]);
        }
        __syncthreads();
    }
    return shared[0];
}

// Pass 2 of the split path: block (chunk, row) normalizes its chunk with the row's combined moments.
template <typename T>
__global__ void __launch_bounds__(kThreads) normalizeChunkKernel(
    T const* x, T* y, GroupNormShape shape, GroupNormAffine affine, int64_t chunkLength, Moments const* moments)
{
    __shared__ Moments shared[kThreads];
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const row = blockIdx.y;
    Moments const total = rowMoments(moments + row * gridDim.x, static_cast<int32_t>(gridDim.x), shared);
    float const mean = total.mean;
    float const invStd = rsqrtf(total.m2 / total.count + affine.epsilon);
    int64_t const firstChannel = (row % shape.groups) * channelsPerGroup;
    int64_t const begin = blockIdx.x * chunkLength;
    int64_t const end = min(rowLength, begin + chunkLength);
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads)
    {
        y[row * rowLength + i] = normalized<T>(x[row * rowLength + i], firstChannel + i / shape.spatial, mean, invStd,
            affine);
    }
}

template <typename T>
cudaError_t launchTyped(void const* x, void* y, GroupNormShape const& shape, GroupNormAffine const& affine,
    void* workspace, cudaStream_t stream)
{
    auto const* in = static_cast<T const*>(x);
    auto* out = static_cast<T*>(y);
    int64_t const rows = shape.batch * shape.groups;
    GroupNormSplit const split = groupNormSplit(shape);
    if (split.chunks == 1)
    {
        auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
        groupNormKernel<<<blocks, kThreads, 0, stream>>>(in, out, shape, affine);
        return cudaGetLastError();
    }
    // rows < kRowsForOneBlockEach here, well within a grid's y extent.
    dim3 const grid(static_cast<unsigned>(split.chunks), static_cast<unsigned>(rows));
    auto* moments = static_cast<Moments*>(workspace);
    int64_t const rowLength = shape.channels / shape.groups * shape.spatial;
    chunkMomentsKernel<<<grid, kThreads, 0, stream>>>(in, rowLength, split.chunkLength, moments);
    normalizeChunkKernel<<<grid, kThreads, 0, stream>>>(in, out, shape, affine, split.chunkLength, moments);
    return cudaGetLastError();
}

} // namespace

cudaError_t launchGroupNorm(void const* x, void* y, bool half, GroupNormShape const& shape,
    GroupNormAffine const& affine, void* workspace, cudaStream_t stream)
{
    if (shape.batch * shape.groups == 0 || shape.channels == 0 || shape.spatial == 0)
    {
        return cudaSuccess;
    }
    return half ? launchTyped<__half>(x, y, shape, affine, workspace, stream)
                : launchTyped<float>(x, y, shape, affine, workspace, stream);
}

} // namespace kiln::plugins
