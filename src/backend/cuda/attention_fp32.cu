// The attention layer on FP32 operands, on the CUDA cores (FP32 plans promise FP32 arithmetic: no tensor-core TF32),
// as flash attention computes it: a group of four warps takes 16 queries of one batch, each warp 4 of them, and walks
// the keys 32 at a time, keeping a running maximum and sum per query row ("online softmax"), so that neither the
// scores nor the probabilities are ever written to memory. In a tile, lane l scores key l against the warp's rows;
// the probabilities then go through shared memory, and lane l accumulates output columns l, l + 32, ... A block holds
// two such groups that take alternate tiles and merge at the end (one for depths over 64), so that a batch of few
// queries keeps enough warps in flight. Operands are read through their layouts, as attention.cu's FP16 kernel reads
// them, with the same treatment of NaN and of rows that every key is masked from.
#include "backend/cuda/attention_problem.cuh"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/layer_kernels.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cuda::attention
{
namespace
{

constexpr int kQueryWarps = 4; //!< warps that share a tile of keys, each taking kWarpRows of the block's queries
constexpr int kWarpRows = 4;
constexpr int kBlockQueries = kQueryWarps * kWarpRows;
constexpr int kGroupThreads = kQueryWarps * 32;
constexpr int kTileKeys = 32; //!< one per lane

__device__ inline float warpMax(float value)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value = fmaxf(value, __shfl_xor_sync(0xFFFFFFFFU, value, offset));
    }
    return value;
}

__device__ inline float warpSum(float value)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value += __shfl_xor_sync(0xFFFFFFFFU, value, offset);
    }
    return value;
}

//! Copies rows [first, first + kRows) of an operand, columns [0, kColumns), into `tile` (rows kPitch apart), zeros
//! past `rowCount` rows and `columnCount` columns; `thread` counts the kGroupThreads threads that copy. Each thread
//! keeps one column and steps down the rows, so that its source moves by a fixed step.
template <int kRows, int kColumns, int kPitch>
__device__ inline void loadTile(float* tile, float const* base, OperandView const& view, int32_t first,
    int32_t rowCount, int32_t columnCount, int32_t thread)
{
    static_assert(kGroupThreads % kColumns == 0, "every pass covers whole rows");
    constexpr int kRowStep = kGroupThreads / kColumns;
    int32_t const c = thread % kColumns;
    int32_t r = thread / kColumns;
    bool const insideColumns = c < columnCount;
    float const* source = base + static_cast<int64_t>(first + r) * view.row + c * view.column;
    int64_t const step = kRowStep * view.row;
#pragma unroll 4
    for (; r < kRows; r += kRowStep, source += step)
    {
        tile[r * kPitch + c] = insideColumns && first + r < rowCount ? *source : 0.0F;
    }
}

//! The mask's value for one query row and key (`at`: its offset), FP32 or FP16.
__device__ inline float maskAt(Problem<float> const& p, int64_t at)
{
    return p.maskType == device::DataType::kHALF ? maskValue(static_cast<__half const*>(p.mask)[at])
                                                 : maskValue(static_cast<float const*>(p.mask)[at]);
}

//! One warp's running softmax for its kWarpRows query rows: lane l holds output columns l, l + 32, ... and its
//! share of each row's sum; every lane holds the rows' maxima.
template <int kColumns>
struct RowState
{
    float output[kWarpRows][kColumns];
    float maximum[kWarpRows];
    float sum[kWarpRows];
};

//! Merges the state of the warp with the same rows in each other key group into group 0's, through `exchange`.
template <int kColumns, int kGroups>
__device__ inline void mergeGroups(RowState<kColumns>& state, float* exchange, int32_t group, int32_t queryWarp)
{
    constexpr int kValues = kWarpRows * (kColumns + 2);
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    float* const mine = exchange + ((group * kQueryWarps + queryWarp) * 32 + lane) * kValues;
    if (group != 0)
    {
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r)
        {
#pragma unroll
            for (int i = 0; i < kColumns; ++i)
            {
                mine[r * kColumns + i] = state.output[r][i];
            }
            mine[kWarpRows * kColumns + r] = state.maximum[r];
            mine[kWarpRows * (kColumns + 1) + r] = state.sum[r];
        }
    }
    __syncthreads();
    if (group != 0)
    {
        return;
    }
    for (int other = 1; other < kGroups; ++other)
    {
        float const* const theirs = mine + other * kQueryWarps * 32 * kValues;
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r)
        {
            float const theirMaximum = theirs[kWarpRows * kColumns + r];
            float const maximum = fmaxf(state.maximum[r], theirMaximum);
            // A group that saw only -inf scores weighs 0; where every group did, the row is NaN whatever is summed.
            float const keep = maximum == -INFINITY ? 0.0F : expf(state.maximum[r] - maximum);
            float const take = maximum == -INFINITY ? 0.0F : expf(theirMaximum - maximum);
            state.maximum[r] = maximum;
            state.sum[r] = state.sum[r] * keep + theirs[kWarpRows * (kColumns + 1) + r] * take;
#pragma unroll
            for (int i = 0; i < kColumns; ++i)
            {
                state.output[r][i] = state.output[r][i] * keep + theirs[r * kColumns + i] * take;
            }
        }
    }
}

//! kDepth: the query's and the values' depths rounded up to a multiple of 32 (zeros past them). kGroups groups of
//! kQueryWarps warps take every kGroups-th tile of keys each, with shared memory of their own, and merge at the end:
//! more warps in flight where a batch has few queries.
template <int kDepth, int kGroups>
__global__ void __launch_bounds__(kGroups* kGroupThreads) attentionKernel(Problem<float> p)
{
    constexpr int kKeyPitch = kDepth + 1; // lane l reads key row l: rows kDepth + 1 apart lie in different banks
    constexpr int kColumns = kDepth / 32; // output columns per lane
    constexpr int kGroupTiles = kTileKeys * (kKeyPitch + kDepth);
    static_assert(kGroups == 1 || kGroups * kGroupTiles >= kGroups * kGroupThreads * kWarpRows * (kColumns + 2),
        "the merge's exchange fits where the tiles were");
    __shared__ __align__(16) float queries[kBlockQueries * kDepth];
    __shared__ __align__(16) float tiles[kGroups * kGroupTiles];
    __shared__ __align__(16) float probabilities[kGroups][kQueryWarps][kWarpRows][kTileKeys];

    uint32_t const batch = blockIdx.x / static_cast<uint32_t>(p.queryTiles);
    int32_t const firstQuery = static_cast<int32_t>(blockIdx.x % static_cast<uint32_t>(p.queryTiles)) * kBlockQueries;
    BatchStarts const starts = batchStarts(p, batch);
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const group = warp / kQueryWarps;
    int32_t const queryWarp = warp % kQueryWarps;
    int32_t const groupThread = static_cast<int32_t>(threadIdx.x) % kGroupThreads;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const row0 = firstQuery + queryWarp * kWarpRows; // the warp's first query row
    if (group == 0)
    {
        loadTile<kBlockQueries, kDepth, kDepth>(
            queries, p.query + starts.query, p.queryView, firstQuery, p.queries, p.depth, groupThread);
    }
    float const* const warpQueries = queries + queryWarp * kWarpRows * kDepth;
    float* const keys = tiles + group * kGroupTiles;
    float* const values = keys + kTileKeys * kKeyPitch;
    float(&warpProbabilities)[kWarpRows][kTileKeys] = probabilities[group][queryWarp];

    RowState<kColumns> state{};
#pragma unroll
    for (int r = 0; r < kWarpRows; ++r)
    {
        state.maximum[r] = -INFINITY;
    }
    // Every group runs as many steps (some past the last key: -inf scores), so that all reach each barrier.
    int32_t const steps = (p.keyCount + kGroups * kTileKeys - 1) / (kGroups * kTileKeys);
    for (int32_t step = 0; step < steps; ++step)
    {
        int32_t const first = (step * kGroups + group) * kTileKeys;
        __syncthreads(); // the queries have landed, and every warp is done with the previous tiles
        loadTile<kTileKeys, kDepth, kKeyPitch>(
            keys, p.keys + starts.keys, p.keyView, first, p.keyCount, p.depth, groupThread);
        loadTile<kTileKeys, kDepth, kDepth>(
            values, p.values + starts.values, p.valueView, first, p.keyCount, p.valueDepth, groupThread);
        __syncthreads();

        float scores[kWarpRows] = {};
        float const* const key = keys + lane * kKeyPitch;
#pragma unroll 4
        for (int c = 0; c < kDepth; c += 4)
        {
            float const k[4] = {key[c], key[c + 1], key[c + 2], key[c + 3]};
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r)
            {
                float4 const q = *reinterpret_cast<float4 const*>(warpQueries + r * kDepth + c);
                scores[r] = fmaf(q.x, k[0], fmaf(q.y, k[1], fmaf(q.z, k[2], fmaf(q.w, k[3], scores[r]))));
            }
        }
        int32_t const keyIndex = first + lane;
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r)
        {
            int32_t const row = row0 + r;
            float score = keyIndex < p.keyCount ? scores[r] * p.scale : -INFINITY;
            if (p.mask != nullptr && keyIndex < p.keyCount && row < p.queries)
            {
                score += maskAt(p,
                    starts.mask + static_cast<int64_t>(row) * p.maskView.row
                        + static_cast<int64_t>(keyIndex) * p.maskView.column);
            }
            // A NaN score never becomes the maximum (fmaxf), as on the CPU; its probability makes the row NaN.
            float const maximum = fmaxf(state.maximum[r], warpMax(score));
            // While every score so far is -inf nothing has accumulated, and exp(-inf - -inf) would be NaN.
            float const rescale = maximum == -INFINITY ? 1.0F : expf(state.maximum[r] - maximum);
            state.maximum[r] = maximum;
            state.sum[r] *= rescale;
#pragma unroll
            for (int i = 0; i < kColumns; ++i)
            {
                state.output[r][i] *= rescale;
            }
            float const probability = maximum == -INFINITY ? 0.0F : expf(score - maximum);
            state.sum[r] += probability;
            warpProbabilities[r][lane] = probability;
        }
        __syncwarp();
#pragma unroll 2
        for (int k = 0; k < kTileKeys; k += 4)
        {
            float4 weights[kWarpRows];
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r)
            {
                weights[r] = *reinterpret_cast<float4 const*>(&warpProbabilities[r][k]);
            }
#pragma unroll
            for (int i = 0; i < kColumns; ++i)
            {
                float const* const column = values + k * kDepth + lane + 32 * i;
                float const v[4] = {column[0], column[kDepth], column[2 * kDepth], column[3 * kDepth]};
#pragma unroll
                for (int r = 0; r < kWarpRows; ++r)
                {
                    state.output[r][i] = fmaf(weights[r].x, v[0],
                        fmaf(weights[r].y, v[1],
                            fmaf(weights[r].z, v[2], fmaf(weights[r].w, v[3], state.output[r][i]))));
                }
            }
        }
    }
    if constexpr (kGroups > 1)
    {
        __syncthreads(); // the exchange overwrites the tiles
        mergeGroups<kColumns, kGroups>(state, tiles, group, queryWarp);
        if (group != 0)
        {
            return;
        }
    }

    // Each row: output / sum, or for a row whose probabilities are all NaN (every score -inf, or a NaN or +inf
    // score) NaN, or 0 where NaN probabilities count as zero.
#pragma unroll
    for (int r = 0; r < kWarpRows; ++r)
    {
        float const total = warpSum(state.sum[r]);
        int32_t const row = row0 + r;
        if (row >= p.queries)
        {
            continue;
        }
        bool const nanRow = state.maximum[r] == -INFINITY || isnan(total) || total == 0.0F;
        float const inverse = 1.0F / total;
        float* const rowOutput = p.output + starts.output + static_cast<int64_t>(row) * p.outputView.row;
#pragma unroll
        for (int i = 0; i < kColumns; ++i)
        {
            int32_t const column = lane + 32 * i;
            if (column < p.valueDepth)
            {
                rowOutput[static_cast<int64_t>(column) * p.outputView.column] = nanRow ? (p.zeroNaN ? 0.0F : NAN)
                                                                                       : state.output[r][i] * inverse;
            }
        }
    }
}

} // namespace

void launchFp32(Problem<float>& problem, int64_t batches, cudaStream_t stream)
{
    int64_t const queryTiles = (problem.queries + kBlockQueries - 1) / kBlockQueries;
    int64_t const blocks = batches * queryTiles;
    if (blocks > INT32_MAX)
    {
        throw std::invalid_argument("attention: " + std::to_string(blocks) + " blocks of queries are too many");
    }
    problem.queryTiles = static_cast<int32_t>(queryTiles);
    auto const grid = static_cast<unsigned>(blocks);
    int32_t const depth = std::max(problem.depth, problem.valueDepth);
    static_assert(kMaxAttentionDepth == 128, "the kernels below cover depths up to kMaxAttentionDepth");
    // Two key groups where their tiles fit in static shared memory (48 KiB), one for the deepest heads.
    if (depth <= 32)
    {
        attentionKernel<32, 2><<<grid, 2 * kGroupThreads, 0, stream>>>(problem);
    }
    else if (depth <= 64)
    {
        attentionKernel<64, 2><<<grid, 2 * kGroupThreads, 0, stream>>>(problem);
    }
    else
    {
        attentionKernel<128, 1><<<grid, kGroupThreads, 0, stream>>>(problem);
    }
    check(cudaGetLastError(), "attention: launching the FP32 kernel");
}

} // namespace kiln::cuda::attention
