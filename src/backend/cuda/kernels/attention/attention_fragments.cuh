// What the tensor-core attention kernels (attention.cu on FP16, attention_fp32_tensor_cores.cu on FP32) do alike with a
// warp's scores once its first product has left them in mma's 16x8 accumulator tiles: the tile's bounds and mask, the
// online softmax over it, and the running output. Lane l holds rows g = l / 4 and g + 8 of the warp's 16 query rows,
// at columns 2 (l % 4) and 2 (l % 4) + 1 of each 8-wide tile: elements (g, c), (g, c + 1), (g + 8, c), (g + 8, c + 1).
#pragma once

#include "backend/cuda/kernels/attention/attention_problem.cuh"

#include <cstdint>

namespace kiln::cuda::attention
{

//! log2(e): the kernels keep scores in base-2 units, score * log2(e), so that each probability is one exp2Approx of a
//! difference (one instruction besides the subtraction) where exp would scale the difference first.
constexpr float kLog2e = 1.4426950408889634F;

//! 2^x by the hardware's approximation (as __expf computes e^x, after its scaling).
__device__ inline float exp2Approx(float x)
{
    float y;
    asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

//! One warp's running softmax state and output for its 16 query rows.
template <int kDepth>
struct RowState
{
    float output[kDepth / 8][4]; //!< per 8-column tile: (g, c), (g, c + 1), (g + 8, c), (g + 8, c + 1)
    float maximum[2];
    float sum[2]; //!< this lane's share of the row sums; the four lanes of a row add theirs at the end
};

//! Adds the mask (of type Mask, FP32 or FP16: the type is chosen once per tile, not per element) to the scores of this
//! lane's rows inside the problem and keys before the last. `maskRows`: where the mask's rows of this lane's two
//! query rows (row0 and row0 + 8) start.
template <typename Mask, int kWarpKeys, typename T>
__device__ inline void addMask(float (&scores)[kWarpKeys / 8][4], Problem<T> const& p, int64_t const (&maskRows)[2],
    int32_t firstKey, int32_t row0)
{
    int32_t const t = static_cast<int32_t>(threadIdx.x) % 4;
#pragma unroll
    for (int half = 0; half < 2; ++half)
    {
        if (row0 + half * 8 >= p.queries)
        {
            continue;
        }
        Mask const* const row = static_cast<Mask const*>(p.mask) + maskRows[half];
#pragma unroll
        for (int n = 0; n < kWarpKeys / 8; ++n)
        {
#pragma unroll
            for (int e = 0; e < 2; ++e)
            {
                int32_t const key = firstKey + n * 8 + 2 * t + e;
                if (key < p.keyCount)
                {
                    float const mask = maskValue(row[static_cast<int64_t>(key) * p.maskView.column]);
                    scores[n][2 * half + e] += mask * kLog2e; // the scores' base-2 units
                }
            }
        }
    }
}

//! The scores of a warp's kWarpKeys keys from `firstKey` on, already scaled into base-2 units, bounded and masked:
//! -inf past the last key, the mask added. `maskRows`: as addMask takes them.
template <int kWarpKeys, typename T>
__device__ inline void boundTile(float (&scores)[kWarpKeys / 8][4], Problem<T> const& p, int64_t const (&maskRows)[2],
    int32_t firstKey, int32_t row0)
{
    if (firstKey + kWarpKeys > p.keyCount)
    {
        // The tile runs past the last key (the warp's part of the last tile): a test only there.
        int32_t const t = static_cast<int32_t>(threadIdx.x) % 4;
#pragma unroll
        for (int n = 0; n < kWarpKeys / 8; ++n)
        {
            int32_t const key = firstKey + n * 8 + 2 * t;
#pragma unroll
            for (int e = 0; e < 4; e += 2)
            {
                scores[n][e] = key < p.keyCount ? scores[n][e] : -INFINITY;
                scores[n][e + 1] = key + 1 < p.keyCount ? scores[n][e + 1] : -INFINITY;
            }
        }
    }
    if (p.mask == nullptr)
    {
        return;
    }
    if (p.maskType == device::DataType::kHALF)
    {
        addMask<__half, kWarpKeys>(scores, p, maskRows, firstKey, row0);
    }
    else
    {
        addMask<float, kWarpKeys>(scores, p, maskRows, firstKey, row0);
    }
}

//! Folds a tile of scores into the running softmax: new maxima (a NaN score never becomes one, as on the CPU), the
//! output and sums rescaled to them, and the scores turned into probabilities 2^(score - maximum).
template <int kDepth, int kWarpKeys>
__device__ inline void softmaxTile(float (&scores)[kWarpKeys / 8][4], RowState<kDepth>& state)
{
#pragma unroll
    for (int half = 0; half < 2; ++half)
    {
        float tileMax = -INFINITY;
#pragma unroll
        for (int n = 0; n < kWarpKeys / 8; ++n)
        {
            tileMax = fmaxf(tileMax, fmaxf(scores[n][2 * half], scores[n][2 * half + 1]));
        }
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xFFFFFFFFU, tileMax, 1));
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xFFFFFFFFU, tileMax, 2));
        float const maximum = fmaxf(state.maximum[half], tileMax);
        // While every score so far is -inf, subtracting +inf instead of the maximum makes every probability and the
        // rescale 0 rather than NaN (-inf - -inf), one test a row instead of one a score. A NaN score still gives a
        // NaN probability, and so a NaN sum: the kernels write such a row as the CPU does.
        float const shift = maximum == -INFINITY ? INFINITY : maximum;
        float const rescale = exp2Approx(state.maximum[half] - shift);
        state.maximum[half] = maximum;
        state.sum[half] *= rescale;
#pragma unroll
        for (int n = 0; n < kDepth / 8; ++n)
        {
            state.output[n][2 * half] *= rescale;
            state.output[n][2 * half + 1] *= rescale;
        }
#pragma unroll
        for (int n = 0; n < kWarpKeys / 8; ++n)
        {
#pragma unroll
            for (int e = 2 * half; e < 2 * half + 2; ++e)
            {
                float const probability = exp2Approx(scores[n][e] - shift);
                scores[n][e] = probability;
                state.sum[half] += probability;
            }
        }
    }
}

} // namespace kiln::cuda::attention
