// Layer norm of short rows (BERT's 768 or 1024 values) with one warp per row, the row held in registers: each row is
// read from memory once, in 16-byte vectors, and the mean and the variance come from the registers (centered, so no
// cancellation) through warp shuffles alone, without shared memory or block barriers. Lane l holds the vectors
// l, l + 32, l + 64, ... of its row: kChunks of them, kVec = 16 / sizeof(T) elements each.
//
// The caller checks warpRowChunks: the width a multiple of kVec, at most 32 * kChunks * kVec (kMaxWarpChunks
// chunks), and every row start 16-byte aligned. Wider or odd rows take block_reduce.cuh's layerNormBlockRow.
#pragma once

#include "block_reduce.cuh"
#include "vector16.cuh"

#include <cstdint>

namespace kiln::plugins
{

constexpr int kMaxWarpChunks = 8;
constexpr int kWarpRowsPerBlock = 4; // 128 threads: enough blocks for 132 SMs at a few thousand rows

//! The chunks of 16 bytes per lane that a row of `width` elements of `elementSize` bytes needs, or 0 where it does
//! not fit the warp path (odd width, too wide, or a base pointer not 16-byte aligned).
inline int warpRowChunks(int64_t width, size_t elementSize, void const* const* pointers, int pointerCount)
{
    int64_t const vec = static_cast<int64_t>(16 / elementSize);
    if (width <= 0 || width % vec != 0 || width > 32 * kMaxWarpChunks * vec)
    {
        return 0;
    }
    for (int i = 0; i < pointerCount; ++i)
    {
        if (reinterpret_cast<uintptr_t>(pointers[i]) % 16 != 0)
        {
            return 0;
        }
    }
    return static_cast<int>((width / vec + 31) / 32);
}

//! Whether chunk c of this lane lies inside a row of `width` elements.
template <int kVec>
__device__ inline bool chunkInRow(int c, int lane, int64_t width)
{
    return static_cast<int64_t>(c * 32 + lane) * kVec < width;
}

//! The element offset of chunk c of this lane in its row.
template <int kVec>
__device__ inline int64_t chunkOffset(int c, int lane)
{
    return static_cast<int64_t>(c * 32 + lane) * kVec;
}

__device__ inline float warpSum(float value)
{
    return warpReduce(value, [](float a, float b) { return a + b; });
}

//! Normalizes the row a warp holds in `values` (chunks outside the row are ignored) in place:
//! gamma (x - mean) rstd + beta, with the biased variance, as layerNormBlockRow computes it.
template <int kChunks, int kVec>
__device__ inline void warpLayerNorm(
    float (&values)[kChunks][kVec], int lane, int64_t width, float const* gamma, float const* beta, float epsilon)
{
    float sum = 0.F;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
#pragma unroll
            for (int i = 0; i < kVec; ++i)
            {
                sum += values[c][i];
            }
        }
    }
    float const mean = warpSum(sum) / static_cast<float>(width);
    float squares = 0.F;
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
#pragma unroll
            for (int i = 0; i < kVec; ++i)
            {
                float const centered = values[c][i] - mean;
                squares += centered * centered;
            }
        }
    }
    float const rstd = rsqrtf(warpSum(squares) / static_cast<float>(width) + epsilon);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
            float g[kVec];
            float b[kVec];
            loadFloats(gamma + chunkOffset<kVec>(c, lane), g);
            loadFloats(beta + chunkOffset<kVec>(c, lane), b);
#pragma unroll
            for (int i = 0; i < kVec; ++i)
            {
                values[c][i] = g[i] * ((values[c][i] - mean) * rstd) + b[i];
            }
        }
    }
}

//! Calls launch.template operator()<kChunks>() with the compile-time chunk count for `chunks` (1 to
//! kMaxWarpChunks), so that each kernel is instantiated once per count.
template <typename Launch>
cudaError_t withWarpChunks(int chunks, Launch&& launch)
{
    switch (chunks)
    {
    case 1: return launch.template operator()<1>();
    case 2: return launch.template operator()<2>();
    case 3: return launch.template operator()<3>();
    case 4: return launch.template operator()<4>();
    case 5: return launch.template operator()<5>();
    case 6: return launch.template operator()<6>();
    case 7: return launch.template operator()<7>();
    case 8: return launch.template operator()<8>();
    default: return cudaErrorInvalidValue;
    }
}

} // namespace kiln::plugins
