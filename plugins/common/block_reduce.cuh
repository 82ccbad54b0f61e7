// Block-wide float reductions for kernels that give one block to one row (layer norm, softmax). Every thread of
// the block must call them (they synchronize); blockDim.x must be a multiple of 32, at most 1024.
#pragma once

#include <cuda_runtime.h>

namespace kiln::plugins
{

template <typename Combine>
__device__ inline float warpReduce(float value, Combine combine)
{
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value = combine(value, __shfl_xor_sync(0xffffffffU, value, offset));
    }
    return value;
}

//! The reduction of every thread's `value`, returned to all threads of the block.
template <typename Combine>
__device__ inline float blockReduce(float value, Combine combine, float identity)
{
    __shared__ float partials[32];
    __shared__ float result;
    int const lane = threadIdx.x % 32;
    int const warp = threadIdx.x / 32;
    value = warpReduce(value, combine);
    if (lane == 0)
    {
        partials[warp] = value;
    }
    __syncthreads();
    if (warp == 0)
    {
        int const warps = (blockDim.x + 31) / 32;
        float partial = lane < warps ? partials[lane] : identity;
        partial = warpReduce(partial, combine);
        if (lane == 0)
        {
            result = partial;
        }
    }
    __syncthreads();
    float const total = result;
    __syncthreads(); // `result` and `partials` may be reused by the next call
    return total;
}

__device__ inline float blockSum(float value)
{
    return blockReduce(
        value, [](float a, float b) { return a + b; }, 0.F);
}

__device__ inline float blockMax(float value)
{
    return blockReduce(
        value, [](float a, float b) { return fmaxf(a, b); }, -INFINITY);
}

//! Layer norm of one row whose values `valueAt(i)` (i < width) are cheap to recompute: two passes for the mean and
//! the biased variance (in float, centered, so no cancellation), a third that writes
//! gamma (x - mean) rstd + beta through `store(i, y)`. No shared row buffer, so any width works.
template <typename ValueAt, typename Store>
__device__ inline void layerNormBlockRow(
    int64_t width, ValueAt valueAt, float const* gamma, float const* beta, float epsilon, Store store)
{
    float sum = 0.F;
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x)
    {
        sum += valueAt(i);
    }
    float const mean = blockSum(sum) / static_cast<float>(width);
    float squares = 0.F;
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x)
    {
        float const centered = valueAt(i) - mean;
        squares += centered * centered;
    }
    float const rstd = rsqrtf(blockSum(squares) / static_cast<float>(width) + epsilon);
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x)
    {
        store(i, gamma[i] * ((valueAt(i) - mean) * rstd) + beta[i]);
    }
}

} // namespace kiln::plugins
