#include "group_norm_kernels.h"

#include "group_norm_on_chip.h"

#include "common/block_reduce.cuh"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

int32_t constexpr kThreads = 256;

// A row's or a chunk's element count, mean and sum of squared deviations from that mean.
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

// The moments of in[begin, end) over the block, in one pass over memory: sums of the deviations from the range's
// first element. Shifted that way the sums stay small next to the variance (unless that element lies far out from
// the rest), so the variance keeps float's accuracy without a second pass for the mean.
template <typename T>
__device__ Moments rangeMoments(T const* in, int64_t begin, int64_t end)
{
    float const count = static_cast<float>(max(end - begin, int64_t{0}));
    if (count == 0.F)
    {
        return Moments{0.F, 0.F, 0.F};
    }
    float const shift = static_cast<float>(in[begin]);
    float sum = 0.F;
    float squares = 0.F;
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads)
    {
        float const deviation = static_cast<float>(in[i]) - shift;
        sum += deviation;
        squares += deviation * deviation;
    }
    float const totalSum = blockSum(sum);
    float const totalSquares = blockSum(squares);
    float const meanDeviation = totalSum / count;
    return Moments{count, shift + meanDeviation, fmaxf(totalSquares - totalSum * meanDeviation, 0.F)};
}

// out[i] for i in [begin, end) of a row whose channels start at `firstChannel`: normalized, scaled, shifted and
// leaky-ReLU'd where asked. Channel by channel, so that no element pays a division for its channel.
template <typename T>
__device__ void normalizeRange(T const* in, T* out, int64_t begin, int64_t end, int64_t spatial, int64_t firstChannel,
    float mean, float invStd, GroupNormAffine const& affine)
{
    for (int64_t c = begin / spatial; c * spatial < end; ++c)
    {
        float const scale = affine.scale[firstChannel + c] * invStd;
        float const bias = affine.bias[firstChannel + c];
        int64_t const to = min(end, (c + 1) * spatial);
        for (int64_t i = max(begin, c * spatial) + threadIdx.x; i < to; i += kThreads)
        {
            float value = (static_cast<float>(in[i]) - mean) * scale + bias;
            if (affine.leakyRelu && value < 0.F)
            {
                value *= affine.alpha;
            }
            out[i] = static_cast<T>(value);
        }
    }
}

// One block per row (an image's group of channels, contiguous in memory): its moments, then the output.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    groupNormKernel(T const* x, T* y, GroupNormShape shape, GroupNormAffine affine)
{
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const rows = shape.batch * shape.groups;
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        T const* in = x + row * rowLength;
        Moments const moments = rangeMoments(in, 0, rowLength);
        float const invStd = rsqrtf(moments.m2 / moments.count + affine.epsilon);
        normalizeRange(in, y + row * rowLength, 0, rowLength, shape.spatial, (row % shape.groups) * channelsPerGroup,
            moments.mean, invStd, affine);
    }
}

// Pass 1 of the split path (GroupNormSplit): block (chunk, row) writes its chunk's moments.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    chunkMomentsKernel(T const* x, int64_t rowLength, int64_t chunkLength, Moments* moments)
{
    int64_t const row = blockIdx.y;
    int64_t const begin = blockIdx.x * chunkLength;
    Moments const chunk = rangeMoments(x + row * rowLength, begin, min(rowLength, begin + chunkLength));
    if (threadIdx.x == 0)
    {
        moments[row * gridDim.x + blockIdx.x] = chunk;
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
    int64_t const begin = blockIdx.x * chunkLength;
    normalizeRange(x + row * rowLength, y + row * rowLength, begin, min(rowLength, begin + chunkLength), shape.spatial,
        (row % shape.groups) * channelsPerGroup, mean, invStd, affine);
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
    // One pass over memory where the rows fit on chip; the two-pass kernels below for the rest.
    cudaError_t const onChip = launchGroupNormOnChip(x, y, half, shape, affine, stream);
    if (onChip != cudaErrorNotSupported)
    {
        return onChip;
    }
    return half ? launchTyped<__half>(x, y, shape, affine, workspace, stream)
                : launchTyped<float>(x, y, shape, affine, workspace, stream);
}

} // namespace kiln::plugins
