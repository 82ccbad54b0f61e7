// The attention layer on FP32 operands on the CUDA cores, where attention_fp32_tensor_cores.cu's kernel does not suit
// (too few queries to fill the GPU, or blocks that cannot have its shared memory), as flash attention computes it: a
// group of four warps takes 16 or 32 queries of one batch, each warp 4 or 8 of them, and walks the keys 64 at a time,
// keeping a running maximum and sum per query row ("online softmax"), so that neither the scores nor the probabilities
// are ever written to memory. In a tile, lane l scores keys 2l and 2l + 1 against the warp's rows, reading both from
// the transposed keys with one load; the probabilities then go through shared memory, and lane l accumulates the output
// columns [l * d / 32, (l + 1) * d / 32) side by side. So each shared-memory read feeds 4 (four rows a warp) or 5.3
// (eight) multiply-adds. Where a batch has few queries, a block holds two groups that take alternate tiles and merge at
// the end (depths up to 64), so that enough warps stay in flight. Operands are read through their layouts, as
// attention.cu's FP16 kernel reads them, with the same treatment of NaN and of rows that every key is masked from.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/attention/attention_launch.cuh"
#include "backend/cuda/kernels/attention/attention_problem.cuh"
#include "backend/cuda/kernels/warp_sum.cuh"
#include "backend/cuda/layer_kernels.h"

#include <algorithm>
#include <cmath>

namespace kiln::cuda::attention
{
namespace
{

using device::warpSum;

constexpr int kQueryWarps = 4; //!< warps that share a tile of keys, each taking its own query rows
constexpr int kGroupThreads = kQueryWarps * 32;
constexpr int kLaneKeys = 2; //!< keys a lane scores in a tile, side by side
constexpr int kTileKeys = 32 * kLaneKeys;

//! How a block of kGroups groups, whose warps take kWarpRows queries each, lays out its shared memory for depths up
//! to kDepth (a multiple of 32): the block's queries, then per group the keys transposed (column c of key k at
//! c * kKeyPitch + k), a tile of values and each warp's probabilities.
template <int kDepth, int kWarpRows, int kGroups>
struct Tiling
{
    static constexpr int kColumns = kDepth / 32; //!< output columns per lane
    static constexpr int kBlockQueries = kQueryWarps * kWarpRows;
    //! Two floats past the tile: a warp copying one key column by column writes to 16 banks, not 1, and a lane's two
    //! keys stay 8-byte aligned for one load.
    static constexpr int kKeyPitch = kTileKeys + 2;
    static constexpr int kQueryFloats = kBlockQueries * kDepth;
    static constexpr int kKeyFloats = kDepth * kKeyPitch;
    static constexpr int kValueFloats = kTileKeys * kDepth;
    static constexpr int kProbabilityFloats = kBlockQueries * kTileKeys;
    static constexpr int kGroupFloats = kKeyFloats + kValueFloats + kProbabilityFloats;
    static constexpr size_t kSharedBytes = sizeof(float) * (kQueryFloats + kGroups * kGroupFloats);
    static_assert(kQueryFloats % 4 == 0 && kKeyFloats % 4 == 0 && kValueFloats % 4 == 0 && kGroupFloats % 4 == 0,
        "every region starts 16-byte aligned");
    //! The merge of the groups' running states reuses the groups' tiles.
    static_assert(kGroups == 1 || kGroups * kGroupFloats >= kGroups * kGroupThreads * kWarpRows * (kColumns + 2),
        "the merge's exchange fits where the tiles were");
};

__device__ inline float warpMax(float value)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value = fmaxf(value, __shfl_xor_sync(0xFFFFFFFFU, value, offset));
    }
    return value;
}

//! Copies rows [first, first + kRows) of an operand, columns [0, kColumns), into `tile`: row r's column c at
//! r * kPitch + c, or at c * kPitch + r where kTransposed. Zeros past `rowCount` rows and `columnCount` columns;
//! `thread` counts the kGroupThreads threads that copy. Each thread keeps one column and steps down the rows, so that
//! its source moves by a fixed step and a warp reads neighbouring columns.
template <int kRows, int kColumns, int kPitch, bool kTransposed = false>
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
        tile[kTransposed ? c * kPitch + r : r * kPitch + c] = insideColumns && first + r < rowCount ? *source : 0.0F;
    }
}

//! kCount neighbouring floats of shared memory, aligned to their size, in one load.
template <int kCount>
__device__ inline void loadNeighbours(float const* at, float (&into)[kCount])
{
    static_assert(kCount == 1 || kCount == 2 || kCount == 4, "one load moves 4, 8 or 16 bytes");
    if constexpr (kCount == 4)
    {
        float4 const v = *reinterpret_cast<float4 const*>(at);
        into[0] = v.x;
        into[1] = v.y;
        into[2] = v.z;
        into[3] = v.w;
    }
    else if constexpr (kCount == 2)
    {
        float2 const v = *reinterpret_cast<float2 const*>(at);
        into[0] = v.x;
        into[1] = v.y;
    }
    else
    {
        into[0] = *at;
    }
}

//! The mask's value for one query row and key (`at`: its offset), FP32 or FP16.
__device__ inline float maskAt(Problem<float> const& p, int64_t at)
{
    return p.maskType == device::DataType::kHALF ? maskValue(static_cast<__half const*>(p.mask)[at])
                                                 : maskValue(static_cast<float const*>(p.mask)[at]);
}

//! A score of the tile, scaled and masked: -inf for a key past the last.
__device__ inline float scoreAt(Problem<float> const& p, BatchStarts const& starts, float dot, int32_t row, int32_t key)
{
    if (key >= p.keyCount)
    {
        return -INFINITY;
    }
    float score = dot * p.scale;
    if (p.mask != nullptr && row < p.queries)
    {
        score += maskAt(p,
            starts.mask + static_cast<int64_t>(row) * p.maskView.row + static_cast<int64_t>(key) * p.maskView.column);
    }
    return score;
}

//! One warp's running softmax for its kWarpRows query rows: each lane holds its output columns and its share of each
//! row's sum; every lane holds the rows' maxima.
template <int kWarpRows, int kColumns>
struct RowState
{
    float output[kWarpRows][kColumns];
    float maximum[kWarpRows];
    float sum[kWarpRows];
};

//! Merges the state of the warp with the same rows in each other key group into group 0's, through `exchange`.
template <int kWarpRows, int kColumns, int kGroups>
__device__ inline void mergeGroups(
    RowState<kWarpRows, kColumns>& state, float* exchange, int32_t group, int32_t queryWarp)
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
//! kQueryWarps warps take every kGroups-th tile of keys each, with shared memory of their own, and merge at the end.
template <int kDepth, int kWarpRows, int kGroups>
__global__ void __launch_bounds__(kGroups* kGroupThreads) attentionKernel(Problem<float> p)
{
    using Shape = Tiling<kDepth, kWarpRows, kGroups>;
    constexpr int kColumns = Shape::kColumns;
    extern __shared__ float4 sharedMemory[];
    float* const queries = reinterpret_cast<float*>(sharedMemory);
    float* const tiles = queries + Shape::kQueryFloats;

    uint32_t const batch = blockIdx.x / static_cast<uint32_t>(p.queryTiles);
    int32_t const firstQuery
        = static_cast<int32_t>(blockIdx.x % static_cast<uint32_t>(p.queryTiles)) * Shape::kBlockQueries;
    BatchStarts const starts = batchStarts(p, batch);
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const group = warp / kQueryWarps;
    int32_t const queryWarp = warp % kQueryWarps;
    int32_t const groupThread = static_cast<int32_t>(threadIdx.x) % kGroupThreads;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const row0 = firstQuery + queryWarp * kWarpRows; // the warp's first query row
    if (group == 0)
    {
        loadTile<Shape::kBlockQueries, kDepth, kDepth>(
            queries, p.query + starts.query, p.queryView, firstQuery, p.queries, p.depth, groupThread);
    }
    float const* const warpQueries = queries + queryWarp * kWarpRows * kDepth;
    float* const keys = tiles + group * Shape::kGroupFloats;
    float* const values = keys + Shape::kKeyFloats;
    float* const warpProbabilities = values + Shape::kValueFloats + queryWarp * kWarpRows * kTileKeys;

    RowState<kWarpRows, kColumns> state{};
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
        loadTile<kTileKeys, kDepth, Shape::kKeyPitch, true>(
            keys, p.keys + starts.keys, p.keyView, first, p.keyCount, p.depth, groupThread);
        loadTile<kTileKeys, kDepth, kDepth>(
            values, p.values + starts.values, p.valueView, first, p.keyCount, p.valueDepth, groupThread);
        __syncthreads();

        float dots[kWarpRows][kLaneKeys] = {};
        float const* const laneKeys = keys + kLaneKeys * lane;
#pragma unroll 4
        for (int c = 0; c < kDepth; c += 4)
        {
            float2 k[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
            {
                k[j] = *reinterpret_cast<float2 const*>(laneKeys + (c + j) * Shape::kKeyPitch);
            }
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r)
            {
                float4 const q = *reinterpret_cast<float4 const*>(warpQueries + r * kDepth + c);
                dots[r][0] = fmaf(q.x, k[0].x, fmaf(q.y, k[1].x, fmaf(q.z, k[2].x, fmaf(q.w, k[3].x, dots[r][0]))));
                dots[r][1] = fmaf(q.x, k[0].y, fmaf(q.y, k[1].y, fmaf(q.z, k[2].y, fmaf(q.w, k[3].y, dots[r][1]))));
            }
        }
        int32_t const key = first + kLaneKeys * lane;
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r)
        {
            int32_t const row = row0 + r;
            float const score0 = scoreAt(p, starts, dots[r][0], row, key);
            float const score1 = scoreAt(p, starts, dots[r][1], row, key + 1);
            // A NaN score never becomes the maximum (fmaxf), as on the CPU; its probability makes the row NaN.
            float const maximum = fmaxf(state.maximum[r], warpMax(fmaxf(score0, score1)));
            // While every score so far is -inf, subtracting +inf instead of the maximum makes the probabilities and
            // the rescale 0 rather than NaN (-inf - -inf), and a NaN score's probability still NaN, wherever it lies.
            float const shift = maximum == -INFINITY ? INFINITY : maximum;
            float const rescale = expf(state.maximum[r] - shift);
            state.maximum[r] = maximum;
            state.sum[r] *= rescale;
#pragma unroll
            for (int i = 0; i < kColumns; ++i)
            {
                state.output[r][i] *= rescale;
            }
            float2 const probabilities{expf(score0 - shift), expf(score1 - shift)};
            state.sum[r] += probabilities.x + probabilities.y;
            *reinterpret_cast<float2*>(warpProbabilities + r * kTileKeys + kLaneKeys * lane) = probabilities;
        }
        __syncwarp();
        float const* const laneValues = values + kColumns * lane;
#pragma unroll 2
        for (int k = 0; k < kTileKeys; k += 4)
        {
            float v[4][kColumns];
#pragma unroll
            for (int j = 0; j < 4; ++j)
            {
                loadNeighbours<kColumns>(laneValues + (k + j) * kDepth, v[j]);
            }
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r)
            {
                float4 const w = *reinterpret_cast<float4 const*>(warpProbabilities + r * kTileKeys + k);
#pragma unroll
                for (int i = 0; i < kColumns; ++i)
                {
                    state.output[r][i] = fmaf(
                        w.x, v[0][i], fmaf(w.y, v[1][i], fmaf(w.z, v[2][i], fmaf(w.w, v[3][i], state.output[r][i]))));
                }
            }
        }
    }
    if constexpr (kGroups > 1)
    {
        __syncthreads(); // the exchange overwrites the tiles
        mergeGroups<kWarpRows, kColumns, kGroups>(state, tiles, group, queryWarp);
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
            int32_t const column = kColumns * lane + i;
            if (column < p.valueDepth)
            {
                rowOutput[static_cast<int64_t>(column) * p.outputView.column] = nanRow ? (p.zeroNaN ? 0.0F : NAN)
                                                                                       : state.output[r][i] * inverse;
            }
        }
    }
}

//! Launches the kernel for one tiling over `batches` batches of `problem`.
template <int kDepth, int kWarpRows, int kGroups>
void launchTiling(Problem<float>& problem, int64_t batches, cudaStream_t stream)
{
    using Shape = Tiling<kDepth, kWarpRows, kGroups>;
    constexpr auto kernel = attentionKernel<kDepth, kWarpRows, kGroups>;
    unsigned const blocks = queryBlocks(problem, batches, Shape::kBlockQueries);
    grantSharedMemory<kernel>(Shape::kSharedBytes, "attention: granting the FP32 kernel its shared memory");
    kernel<<<blocks, kGroups * kGroupThreads, Shape::kSharedBytes, stream>>>(problem);
    check(cudaGetLastError(), "attention: launching the FP32 kernel");
}

//! Eight rows a warp where their blocks fill the multiprocessors twice over (each shared-memory read then feeds twice
//! the multiply-adds); otherwise four, with a second group of warps taking every other tile of keys where the depth
//! leaves room.
template <int kDepth>
void launchDepth(Problem<float>& problem, int64_t batches, int32_t multiprocessors, cudaStream_t stream)
{
    constexpr int kWideBlockQueries = Tiling<kDepth, 8, 1>::kBlockQueries;
    int64_t const wideBlocks = batches * ((problem.queries + kWideBlockQueries - 1) / kWideBlockQueries);
    if (wideBlocks >= 2 * int64_t{multiprocessors})
    {
        launchTiling<kDepth, 8, 1>(problem, batches, stream);
    }
    else
    {
        launchTiling<kDepth, 4, kDepth <= 64 ? 2 : 1>(problem, batches, stream);
    }
}

} // namespace

void launchFp32(Problem<float>& problem, int64_t batches, int32_t multiprocessors, int32_t sharedMemoryPerBlock,
    cudaStream_t stream)
{
    if (splitTf32Suits(problem, batches, multiprocessors, sharedMemoryPerBlock))
    {
        launchSplitTf32(problem, batches, stream);
        return;
    }
    withKernelDepth(std::max(problem.depth, problem.valueDepth),
        [&](auto depth) { launchDepth<depth()>(problem, batches, multiprocessors, stream); });
}

} // namespace kiln::cuda::attention
