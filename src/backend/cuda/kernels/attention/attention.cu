// The attention layer (network/fused/attention.h) on the GPU in one kernel, as flash attention computes it: a block
// of four warps takes 16, 32 or 64 queries of one batch, each warp 16 of them, and walks the keys a tile at a time
// keeping a running maximum and sum per query row ("online softmax"), so that neither the scores nor the
// probabilities are ever written to memory. Where there are few queries (a ViT's 197 tokens), the warps that share
// queries split each tile's keys between them and merge their rows at the end, so that enough warps run. Both products
// run on the tensor cores (mma.sync m16n8k16, FP16 in, FP32 accumulation); the scores stay in registers, and the
// probabilities go from the first product's accumulators into the second product's operands without leaving them. Key
// and value tiles are copied to shared memory asynchronously, the next while the current one is computed. Operands are
// read through their layouts (backend/shared/attention_geometry.h), so the transposes the fusion absorbed cost nothing:
// a row of a head's query, keys or values is contiguous either way. FP32 operands run
// attention_fp32_tensor_cores.cu's kernel or attention_fp32.cu's. The layer (libraries/cudnn/attention_layer.h) runs
// cuDNN's fused attention instead on long unmasked FP16 problems that cuDNN takes.
//
// Quantized attention's roundings (network/fused/attention.h) are computed where the values are: the operands' in
// shared memory once a tile has landed, the scores' in registers. The products' operands are kept as the steps of
// their quantizations (exact in FP16), and their scales applied to the products' sums: to the scores before they are
// rounded, to the output as it is written. The probabilities' rounding needs each row's final maximum and sum, which
// online softmax knows only at the end: with it, the kernel walks the keys twice, first for the rows' maxima and
// sums, then for the normalized probabilities, rounded, times the values. Where the keys are few (BERT's 128 tokens,
// ViT's 197), the block's shared memory holds a stage for every tile of keys and values, so each is copied and
// rounded once; the scores wait between the walks where their keys were, or in registers (two tiles), or else are
// computed again from the resident keys.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_facts.h"
#include "backend/cuda/kernels/attention/attention_fragments.cuh"
#include "backend/cuda/kernels/attention/attention_launch.cuh"
#include "backend/cuda/kernels/attention/attention_problem.cuh"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/tensor_core.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/shared/attention_geometry.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using attention::BatchStarts;
using attention::exp2Approx;
using attention::Grids;
using attention::kLog2e;
using attention::OperandView;
using attention::RowState;
using attention::softmaxTile;
using attention::withKernelDepth;
using device::DataType;
using HalfProblem = attention::Problem<__half>;

constexpr int kWarps = 4;
constexpr int kWarpQueries = 16; //!< one mma tile high
constexpr int kThreads = kWarps * 32;

//! Copies rows [first, first + kRows) of a matrix operand (row-major in shared memory with pitch kPitch, kColumns
//! wide) into `tile`, zeros past `rowCount` rows and `columnCount` columns: 16 bytes at a time without waiting where
//! `vector`, else element by element.
template <int kRows, int kColumns, int kPitch>
__device__ inline void loadTile(__half* tile, __half const* base, OperandView const& view, int32_t first,
    int32_t rowCount, int32_t columnCount, bool vector)
{
    if (vector)
    {
        // Each thread copies one 16-byte chunk of a row per pass, the same chunk of every kRowsPerPass-th row, so
        // that its source moves by a fixed step.
        constexpr int kChunks = kColumns / 8;
        constexpr int kRowsPerPass = kThreads / kChunks;
        static_assert(kThreads % kChunks == 0, "every pass covers whole rows");
        int32_t const firstRow = static_cast<int32_t>(threadIdx.x) / kChunks;
        int32_t const c = static_cast<int32_t>(threadIdx.x) % kChunks * 8;
        __half const* source = base + static_cast<int64_t>(first + firstRow) * view.row + c;
        int64_t const step = kRowsPerPass * view.row;
#pragma unroll
        for (int pass = 0; pass < (kRows + kRowsPerPass - 1) / kRowsPerPass; ++pass, source += step)
        {
            int32_t const r = firstRow + pass * kRowsPerPass;
            if (kRows % kRowsPerPass == 0 || r < kRows)
            {
                bool const inside = first + r < rowCount && c < columnCount;
                copyAsync(tile + r * kPitch + c, inside ? source : base, inside ? 16U : 0U);
            }
        }
        return;
    }
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < kRows * kColumns; i += kThreads)
    {
        int32_t const r = i / kColumns;
        int32_t const c = i % kColumns;
        bool const inside = first + r < rowCount && c < columnCount;
        tile[r * kPitch + c] = inside ? base[static_cast<int64_t>(first + r) * view.row + c * view.column]
                                      : __float2half_rn(0.0F);
    }
}

//! Replaces the kRows x kColumns elements of `tile` (pitch kPitch) by their steps, 16 bytes at a time, after the
//! block's copies into it landed.
template <Grids kGrids, int kRows, int kColumns, int kPitch>
__device__ inline void roundTile(__half* tile, attention::Rounding const& rounding)
{
    static_assert(kColumns % 8 == 0 && kPitch % 8 == 0, "16-byte chunks of a row");
    constexpr int kChunks = kColumns / 8;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < kRows * kChunks; i += kThreads)
    {
        auto* const chunk = reinterpret_cast<__half2*>(tile + i / kChunks * kPitch + i % kChunks * 8);
        uint4 halves = *reinterpret_cast<uint4 const*>(chunk);
        auto* const pairs = reinterpret_cast<__half2*>(&halves);
#pragma unroll
        for (int pair = 0; pair < 4; ++pair)
        {
            pairs[pair] = rounding.steps<kGrids>(pairs[pair]);
        }
        *reinterpret_cast<uint4*>(chunk) = halves;
    }
}

//! The scores of the warp's rows against its kWarpKeys keys of a tile, in base-2 units (kLog2e): the products times
//! `scale` (the problem's, and the query's and keys' units where they are steps; times kLog2e where the scores are
//! not rounded), rounding, mask, -inf past the last key. `maskRows`: as attention::boundTile takes them.
template <int kDepth, int kWarpKeys, Grids kGrids>
__device__ inline void scoreTile(float (&scores)[kWarpKeys / 8][4], uint32_t const (&query)[kDepth / 16][4],
    __half const* keys, HalfProblem const& p, float scale, int64_t const (&maskRows)[2], int32_t firstKey, int32_t row0)
{
    constexpr int kPitch = kDepth + 8;
    static_assert(kDepth % 32 == 0, "ldmatrix gives the b fragments of two 16-deep steps at a time");
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    // ldmatrix: lanes 8m..8m+7 give the 8 keys' rows of matrix m, columns 8m on: the b fragments (keys g, columns
    // 2t and 2t + 8) of 16-deep steps k and k + 1.
    __half const* const keyRows = keys + (lane % 8) * kPitch + lane / 8 * 8;
#pragma unroll
    for (int n = 0; n < kWarpKeys / 8; ++n)
    {
        scores[n][0] = scores[n][1] = scores[n][2] = scores[n][3] = 0.0F;
#pragma unroll
        for (int k = 0; k < kDepth / 16; k += 2)
        {
            uint32_t b[4];
            loadMatrices(b, keyRows + n * 8 * kPitch + k * 16);
            mma16816(scores[n], query[k], b[0], b[1]);
            mma16816(scores[n], query[k + 1], b[2], b[3]);
        }
#pragma unroll
        for (int e = 0; e < 4; e += 2)
        {
            float2 scaled{scores[n][e] * scale, scores[n][e + 1] * scale};
            if (kGrids != Grids::kNone)
            {
                if (p.scoresRounding.rounds)
                {
                    scaled = p.scoresRounding.rounded<kGrids>(scaled);
                }
                scaled = float2{scaled.x * kLog2e, scaled.y * kLog2e};
            }
            scores[n][e] = scaled.x;
            scores[n][e + 1] = scaled.y;
        }
    }
    attention::boundTile<kWarpKeys>(scores, p, maskRows, firstKey, row0);
}

//! The a fragments of the second product (two 8-key tiles make one 16-key step): fragment k holds the pairs of
//! accumulator tiles 2k and 2k + 1, each tile's row g pair first.
template <int kWarpKeys>
using ProbabilityFragments = uint32_t[kWarpKeys / 16][4];

//! Where a pair of probabilities (accumulator tile n, row g + 8 `half`) goes in the a fragments.
__device__ constexpr int fragmentPair(int n, int half)
{
    return (n % 2) * 2 + half;
}

//! The probabilities, from the score accumulators, as the second product's FP16 operands.
template <int kWarpKeys>
__device__ inline void packProbabilities(
    float const (&probabilities)[kWarpKeys / 8][4], ProbabilityFragments<kWarpKeys>& fragments)
{
#pragma unroll
    for (int n = 0; n < kWarpKeys / 8; ++n)
    {
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            fragments[n / 2][fragmentPair(n, half)]
                = packHalves(probabilities[n][2 * half], probabilities[n][2 * half + 1]);
        }
    }
}

//! The second walk where the probabilities are rounded: the scores turned into the normalized probabilities
//! 2^(score - maximum) / sum of the rows' final maxima and sums, NaN where the unfused SoftMax gives NaN (as 0 where
//! NaN probabilities count as zero), then their steps, as the second product's operands.
template <int kDepth, int kWarpKeys, Grids kGrids>
__device__ inline void roundedProbabilities(float const (&scores)[kWarpKeys / 8][4], RowState<kDepth> const& state,
    HalfProblem const& p, ProbabilityFragments<kWarpKeys>& fragments)
{
    float const inverse[2] = {1.0F / state.sum[0], 1.0F / state.sum[1]};
#pragma unroll
    for (int n = 0; n < kWarpKeys / 8; ++n)
    {
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            float2 probabilities{exp2Approx(scores[n][2 * half] - state.maximum[half]) * inverse[half],
                exp2Approx(scores[n][2 * half + 1] - state.maximum[half]) * inverse[half]};
            if (p.zeroNaN)
            {
                probabilities.x = isnan(probabilities.x) ? 0.0F : probabilities.x;
                probabilities.y = isnan(probabilities.y) ? 0.0F : probabilities.y;
            }
            __half2 const steps = p.probabilitiesRounding.steps<kGrids>(probabilities);
            fragments[n / 2][fragmentPair(n, half)] = *reinterpret_cast<uint32_t const*>(&steps);
        }
    }
}

//! output += probabilities . values for the warp's rows, the probabilities as a fragments.
template <int kDepth, int kWarpKeys>
__device__ inline void accumulateTile(
    ProbabilityFragments<kWarpKeys> const& probabilities, __half const* values, RowState<kDepth>& state)
{
    constexpr int kPitch = kDepth + 8;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    // ldmatrix: lanes 8m..8m+7 give the rows of matrix m; matrices 0, 1 are keys 0-7 and 8-15 of columns 0-7,
    // matrices 2, 3 the same keys of columns 8-15.
    int32_t const matrix = lane / 8;
    int32_t const rowInStep = lane % 8 + (matrix & 1) * 8;
    int32_t const columnInPair = (matrix >> 1) * 8;
#pragma unroll
    for (int k = 0; k < kWarpKeys / 16; ++k)
    {
#pragma unroll
        for (int n = 0; n < kDepth / 8; n += 2)
        {
            uint32_t b[4];
            loadTransposed(b, values + (k * 16 + rowInStep) * kPitch + n * 8 + columnInPair);
            mma16816(state.output[n], probabilities[k], b[0], b[1]);
            mma16816(state.output[n + 1], probabilities[k], b[2], b[3]);
        }
    }
}

//! Writes the warp's rows: output / sum, or for a row whose probabilities are all NaN (every score -inf, or a NaN
//! or +inf score, as on the CPU) NaN, or 0 where NaN probabilities count as zero. Where the probabilities were
//! `normalized` (rounded) already, the output as it is. Either times `scale` (the units of the second product's
//! operands where they are steps).
template <int kDepth>
__device__ inline void storeRows(
    RowState<kDepth>& state, HalfProblem const& p, __half* output, int32_t row0, bool normalized, float scale)
{
    int32_t const t = static_cast<int32_t>(threadIdx.x) % 4;
#pragma unroll
    for (int half = 0; half < 2; ++half)
    {
        float sum = state.sum[half];
        sum += __shfl_xor_sync(0xFFFFFFFFU, sum, 1);
        sum += __shfl_xor_sync(0xFFFFFFFFU, sum, 2);
        int32_t const row = row0 + half * 8;
        if (row >= p.queries)
        {
            continue;
        }
        bool const nanRow = !normalized && (state.maximum[half] == -INFINITY || isnan(sum) || sum == 0.0F);
        float const inverse = normalized ? scale : scale / sum;
        auto const valueOf
            = [&](int n, int e) { return nanRow ? (p.zeroNaN ? 0.0F : NAN) : state.output[n][2 * half + e] * inverse; };
        __half* const rowOutput = output + static_cast<int64_t>(row) * p.outputView.row;
#pragma unroll
        for (int n = 0; n < kDepth / 8; ++n)
        {
            int32_t const column = n * 8 + 2 * t;
            if (p.pairedOutput && column < p.valueDepth)
            {
                *reinterpret_cast<__half2*>(rowOutput + column) = __floats2half2_rn(valueOf(n, 0), valueOf(n, 1));
                continue;
            }
#pragma unroll
            for (int e = 0; e < 2; ++e)
            {
                if (!p.pairedOutput && column + e < p.valueDepth)
                {
                    rowOutput[static_cast<int64_t>(column + e) * p.outputView.column] = __float2half_rn(valueOf(n, e));
                }
            }
        }
    }
}

//! Merges the rows of the warps that split a block's keys into the first of them (`split` 0), through shared memory
//! (`exchange`, which the tiles no longer use): each lane holds the same positions in every warp, so lane l of the
//! first warp takes lane l's values of the others, rescaled to the rows' overall maxima, or added as they are where
//! the probabilities were `normalized` already.
template <int kDepth, int kKeyWarps>
__device__ inline void mergeSplits(
    RowState<kDepth>& state, float* exchange, int32_t queryWarp, int32_t split, bool normalized)
{
    constexpr int kValues = kDepth / 2 + 4; // output[kDepth / 8][4], maximum[2], sum[2]
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    float* const mine = exchange + ((queryWarp * kKeyWarps + split) * 32 + lane) * kValues;
    if (split != 0)
    {
#pragma unroll
        for (int n = 0; n < kDepth / 8; ++n)
        {
#pragma unroll
            for (int e = 0; e < 4; ++e)
            {
                mine[n * 4 + e] = state.output[n][e];
            }
        }
        mine[kDepth / 2] = state.maximum[0];
        mine[kDepth / 2 + 1] = state.maximum[1];
        mine[kDepth / 2 + 2] = state.sum[0];
        mine[kDepth / 2 + 3] = state.sum[1];
    }
    __syncthreads();
    if (split != 0)
    {
        return;
    }
    for (int32_t other = 1; other < kKeyWarps; ++other)
    {
        float const* theirs = mine + other * 32 * kValues;
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            float const maximum = fmaxf(state.maximum[half], theirs[kDepth / 2 + half]);
            // A split that saw only -inf scores weighs 0; where every split did, the row is NaN whatever is summed.
            float const keep = normalized ? 1.0F
                : maximum == -INFINITY    ? 0.0F
                                          : exp2Approx(state.maximum[half] - maximum);
            float const take = normalized ? 1.0F
                : maximum == -INFINITY    ? 0.0F
                                          : exp2Approx(theirs[kDepth / 2 + half] - maximum);
            state.maximum[half] = maximum;
            state.sum[half] = state.sum[half] * keep + theirs[kDepth / 2 + 2 + half] * take;
#pragma unroll
            for (int n = 0; n < kDepth / 8; ++n)
            {
#pragma unroll
                for (int e = 2 * half; e < 2 * half + 2; ++e)
                {
                    state.output[n][e] = state.output[n][e] * keep + theirs[n * 4 + e] * take;
                }
            }
        }
    }
}

//! After the first walk of the keys: each row's maximum and sum over all of them in every lane of the row, the sums
//! of the row's four lanes added and, where warps split the keys, every split's merged through shared memory
//! (`exchange`, which the tiles are not using).
template <int kDepth, int kKeyWarps>
__device__ inline void completeRowStatistics(RowState<kDepth>& state, float* exchange, int32_t queryWarp)
{
#pragma unroll
    for (int half = 0; half < 2; ++half)
    {
        state.sum[half] += __shfl_xor_sync(0xFFFFFFFFU, state.sum[half], 1);
        state.sum[half] += __shfl_xor_sync(0xFFFFFFFFU, state.sum[half], 2);
    }
    if constexpr (kKeyWarps > 1)
    {
        int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
        int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
        float* const mine = exchange + (warp * 32 + lane) * 4;
        mine[0] = state.maximum[0];
        mine[1] = state.maximum[1];
        mine[2] = state.sum[0];
        mine[3] = state.sum[1];
        __syncthreads();
        float maximum[2] = {-INFINITY, -INFINITY};
        for (int32_t split = 0; split < kKeyWarps; ++split)
        {
            float const* theirs = exchange + ((queryWarp * kKeyWarps + split) * 32 + lane) * 4;
            maximum[0] = fmaxf(maximum[0], theirs[0]);
            maximum[1] = fmaxf(maximum[1], theirs[1]);
        }
        float sum[2] = {0.0F, 0.0F};
        for (int32_t split = 0; split < kKeyWarps; ++split)
        {
            float const* theirs = exchange + ((queryWarp * kKeyWarps + split) * 32 + lane) * 4;
#pragma unroll
            for (int half = 0; half < 2; ++half)
            {
                // A split that saw only -inf scores adds nothing; a row that is -inf throughout stays so.
                sum[half] += maximum[half] == -INFINITY ? 0.0F
                                                        : theirs[2 + half] * exp2Approx(theirs[half] - maximum[half]);
            }
        }
        __syncthreads(); // every warp has read the exchange before the tiles are copied over it
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            state.maximum[half] = maximum[half];
            state.sum[half] = sum[half];
        }
    }
}

//! kDepth: the query's and the values' depths rounded up to a multiple of 16 (zeros past them). kTileKeys keys per
//! step, in two shared-memory stages of keys and values: one being computed, the next being copied. kQueryWarps
//! warps take 16 queries each; the block's other warps split each tile's keys with them (kKeyWarps per query warp).
//! kGrids: the grids of the problem's roundings (quantized attention); Grids::kNone compiles the kernel without their
//! code.
template <int kDepth, int kTileKeys, int kQueryWarps, Grids kGrids>
__global__ void __launch_bounds__(kThreads) attentionKernel(HalfProblem p)
{
    constexpr bool kRounds = kGrids != Grids::kNone;
    constexpr int kKeyWarps = kWarps / kQueryWarps;
    constexpr int kWarpKeys = kTileKeys / kKeyWarps;
    constexpr int kBlockQueries = kQueryWarps * kWarpQueries;
    constexpr int kPitch = kDepth + 8; // 16-byte rows whose 8-row groups start in different banks
    constexpr int kStage = 2 * kTileKeys * kPitch;
    static_assert(kWarpKeys % 16 == 0, "a warp takes whole 16-key steps of the second product");
    static_assert(2 * kStage >= kBlockQueries * kPitch, "the queries are staged where the tiles go");
    static_assert(kKeyWarps == 1 || 2 * kStage * 2 >= kWarps * 32 * (kDepth / 2 + 4) * 4, "the merge fits");
    // Whether a tile's scores (every warp's, FP32) fit where its keys were, for the passes that keep every key.
    constexpr bool kStashesScores = kWarps * 32 * kWarpKeys / 2 * 4 <= kTileKeys * kPitch * 2;
    // p.stages stages of kStage halves (launched with that much dynamic shared memory): two, or one per tile.
    extern __shared__ __align__(16) __half shared[];
    // The rows' maxima and sums of every lane, where the merge of the splits' statistics cannot go through `shared`
    // because the keys stay there (every tile of keys, where they are few: below).
    __shared__ float rowStatistics[kRounds && kKeyWarps > 1 ? kWarps * 32 * 4 : 1];

    uint32_t const batch = blockIdx.x / static_cast<uint32_t>(p.queryTiles);
    int32_t const firstQuery = static_cast<int32_t>(blockIdx.x % static_cast<uint32_t>(p.queryTiles)) * kBlockQueries;
    BatchStarts const starts = attention::batchStarts(p, batch);
    __half const* const keys = p.keys + starts.keys;
    __half const* const values = p.values + starts.values;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const queryWarp = warp / kKeyWarps;
    int32_t const split = warp % kKeyWarps;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const g = lane / 4;
    int32_t const t = lane % 4;

    // The block's queries through shared memory into each warp's a fragments, which stay in registers.
    loadTile<kBlockQueries, kDepth, kPitch>(
        shared, p.query + starts.query, p.queryView, firstQuery, p.queries, p.depth, p.vectorQuery);
    commitCopies();
    awaitCopies<0>();
    __syncthreads();
    if (kRounds && p.queryRounding.changes())
    {
        roundTile<kGrids, kBlockQueries, kDepth, kPitch>(shared, p.queryRounding);
        __syncthreads();
    }
    uint32_t query[kDepth / 16][4];
    __half const* warpQueries = shared + queryWarp * kWarpQueries * kPitch;
#pragma unroll
    for (int k = 0; k < kDepth / 16; ++k)
    {
        __half const* q = warpQueries + g * kPitch + k * 16 + 2 * t;
        query[k][0] = loadPair(q);
        query[k][1] = loadPair(q + 8 * kPitch);
        query[k][2] = loadPair(q + 8);
        query[k][3] = loadPair(q + 8 * kPitch + 8);
    }
    __syncthreads(); // the staged queries are overwritten by the first tile

    RowState<kDepth> state{};
    state.maximum[0] = state.maximum[1] = -INFINITY;
    int32_t const row0 = firstQuery + queryWarp * kWarpQueries + g;
    int64_t const maskRows[2]{starts.mask + static_cast<int64_t>(row0) * p.maskView.row,
        starts.mask + static_cast<int64_t>(row0 + 8) * p.maskView.row};
    int32_t const tiles = (p.keyCount + kTileKeys - 1) / kTileKeys;
    // Copies key tile `tile` into stage `stageIndex`, and its values kTileKeys rows on where `withValues`.
    auto const loadStage = [&](int32_t tile, int32_t stageIndex, bool withValues) {
        __half* stage = shared + stageIndex * kStage;
        loadTile<kTileKeys, kDepth, kPitch>(
            stage, keys, p.keyView, tile * kTileKeys, p.keyCount, p.depth, p.vectorKeys);
        if (withValues)
        {
            loadTile<kTileKeys, kDepth, kPitch>(stage + kTileKeys * kPitch, values, p.valueView, tile * kTileKeys,
                p.keyCount, p.valueDepth, p.vectorValues);
        }
    };
    // Rounds the landed stage's keys, and its values where `withValues`, as the problem's pairs do.
    auto const roundStage = [&](__half* landed, bool withValues) {
        bool const roundsValues = withValues && p.valuesRounding.changes();
        if (kRounds && (p.keysRounding.changes() || roundsValues))
        {
            roundTile<kGrids, kTileKeys, kDepth, kPitch>(landed, p.keysRounding);
            if (roundsValues)
            {
                roundTile<kGrids, kTileKeys, kDepth, kPitch>(landed + kTileKeys * kPitch, p.valuesRounding);
            }
            __syncthreads();
        }
    };
    // Walks the key tiles, handing `step` this warp's part of each stage (keys, then the values kTileKeys rows on,
    // where `withValues`) and the first key of that part.
    auto const walkKeys = [&](bool withValues, auto&& step) {
        loadStage(0, 0, withValues);
        commitCopies();
        for (int32_t tile = 0; tile < tiles; ++tile)
        {
            if (tile + 1 < tiles)
            {
                loadStage(tile + 1, (tile + 1) % 2, withValues); // into the stage the previous step finished reading
            }
            commitCopies();
            awaitCopies<1>(); // this tile's copies have landed; the next tile's may still be in flight
            __syncthreads();
            __half* const landed = shared + (tile % 2) * kStage;
            roundStage(landed, withValues);
            step(landed + split * kWarpKeys * kPitch, tile * kTileKeys + split * kWarpKeys);
            __syncthreads(); // every warp is done with this stage before the next step copies into it
        }
    };
    bool const normalized = kRounds && p.probabilitiesRounding.rounds;
    // The products' sums scaled by their operands' units, which are 1 where the operands are not steps.
    float const scoreScale = kRounds ? p.scale * p.queryRounding.unit() * p.keysRounding.unit() : p.scale * kLog2e;
    float const outputScale = kRounds ? p.valuesRounding.unit() * (normalized ? p.probabilitiesRounding.unit() : 1.0F)
                                      : 1.0F;
    if (normalized && tiles <= p.stages)
    {
        // Every key and value has a stage (BERT's 128 tokens at depth 64 fit the two; ViT's 197 were launched with
        // four): they are copied and rounded once, where the walks below copy, round and multiply the keys twice. The
        // same values in the same order: the same bits.
        for (int32_t tile = 0; tile < tiles; ++tile)
        {
            loadStage(tile, tile, true);
        }
        commitCopies();
        awaitCopies<0>();
        __syncthreads();
        for (int32_t tile = 0; tile < tiles; ++tile)
        {
            roundStage(shared + tile * kStage, true);
        }
        if constexpr (kStashesScores)
        {
            // The scores wait in shared memory where their keys were, so that each pass is one loop: the unrolled
            // passes of the registers' version below make code that the instruction cache holds badly.
            auto const stash = [&](int32_t tile) {
                return reinterpret_cast<float4*>(shared + tile * kStage) + warp * (kWarpKeys / 8) * 32 + lane;
            };
#pragma unroll 1
            for (int32_t tile = 0; tile < tiles; ++tile)
            {
                float scores[kWarpKeys / 8][4];
                scoreTile<kDepth, kWarpKeys, kGrids>(scores, query, shared + tile * kStage + split * kWarpKeys * kPitch,
                    p, scoreScale, maskRows, tile * kTileKeys + split * kWarpKeys, row0);
                __syncthreads(); // every warp has read the tile's keys
#pragma unroll
                for (int n = 0; n < kWarpKeys / 8; ++n)
                {
                    stash(tile)[n * 32] = make_float4(scores[n][0], scores[n][1], scores[n][2], scores[n][3]);
                }
                softmaxTile<kDepth, kWarpKeys>(scores, state);
            }
            completeRowStatistics<kDepth, kKeyWarps>(state, rowStatistics, queryWarp);
#pragma unroll 1
            for (int32_t tile = 0; tile < tiles; ++tile)
            {
                float scores[kWarpKeys / 8][4];
#pragma unroll
                for (int n = 0; n < kWarpKeys / 8; ++n)
                {
                    float4 const stashed = stash(tile)[n * 32];
                    scores[n][0] = stashed.x;
                    scores[n][1] = stashed.y;
                    scores[n][2] = stashed.z;
                    scores[n][3] = stashed.w;
                }
                ProbabilityFragments<kWarpKeys> probabilities;
                roundedProbabilities<kDepth, kWarpKeys, kGrids>(scores, state, p, probabilities);
                accumulateTile<kDepth, kWarpKeys>(
                    probabilities, shared + tile * kStage + split * kWarpKeys * kPitch + kTileKeys * kPitch, state);
            }
        }
        else if (tiles > 2)
        {
            // More tiles than the registers hold scores for: the second walk computes them again from the resident
            // keys, the same products in the same order. Both walks are one loop, so that the scores' product is
            // compiled once: as two loops, each with its copy, the blocks of a multiprocessor (in either walk) missed
            // the instruction cache (ViT's FP8 attention at batch 8 on an H200, Nsight Compute: 3.1 of its 8.2 cycles
            // per instruction stalled on instruction fetch, against 0.3 of 5.3 in the FP16 kernel).
#pragma unroll 1
            for (int32_t step = 0; step < 2 * tiles; ++step)
            {
                bool const secondWalk = step >= tiles;
                int32_t const tile = secondWalk ? step - tiles : step;
                if (step == tiles)
                {
                    completeRowStatistics<kDepth, kKeyWarps>(state, rowStatistics, queryWarp);
                }
                __half const* const stage = shared + tile * kStage + split * kWarpKeys * kPitch;
                float scores[kWarpKeys / 8][4];
                scoreTile<kDepth, kWarpKeys, kGrids>(
                    scores, query, stage, p, scoreScale, maskRows, tile * kTileKeys + split * kWarpKeys, row0);
                if (!secondWalk)
                {
                    softmaxTile<kDepth, kWarpKeys>(scores, state);
                    continue;
                }
                ProbabilityFragments<kWarpKeys> probabilities;
                roundedProbabilities<kDepth, kWarpKeys, kGrids>(scores, state, p, probabilities);
                accumulateTile<kDepth, kWarpKeys>(probabilities, stage + kTileKeys * kPitch, state);
            }
        }
        else
        {
            float scores[2][kWarpKeys / 8][4];
#pragma unroll
            for (int tile = 0; tile < 2; ++tile)
            {
                if (tile < tiles)
                {
                    scoreTile<kDepth, kWarpKeys, kGrids>(scores[tile], query,
                        shared + tile * kStage + split * kWarpKeys * kPitch, p, scoreScale, maskRows,
                        tile * kTileKeys + split * kWarpKeys, row0);
                    float probabilities[kWarpKeys / 8][4];
#pragma unroll
                    for (int n = 0; n < kWarpKeys / 8; ++n)
                    {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                        {
                            probabilities[n][e] = scores[tile][n][e];
                        }
                    }
                    softmaxTile<kDepth, kWarpKeys>(probabilities, state);
                }
            }
            completeRowStatistics<kDepth, kKeyWarps>(state, rowStatistics, queryWarp);
#pragma unroll
            for (int tile = 0; tile < 2; ++tile)
            {
                if (tile < tiles)
                {
                    ProbabilityFragments<kWarpKeys> probabilities;
                    roundedProbabilities<kDepth, kWarpKeys, kGrids>(scores[tile], state, p, probabilities);
                    accumulateTile<kDepth, kWarpKeys>(
                        probabilities, shared + tile * kStage + split * kWarpKeys * kPitch + kTileKeys * kPitch, state);
                }
            }
        }
        __syncthreads(); // every warp is done with the values before the splits' merge writes over them
    }
    else if (normalized)
    {
        walkKeys(false, [&](__half const* stage, int32_t firstKey) {
            float scores[kWarpKeys / 8][4];
            scoreTile<kDepth, kWarpKeys, kGrids>(scores, query, stage, p, scoreScale, maskRows, firstKey, row0);
            softmaxTile<kDepth, kWarpKeys>(scores, state);
        });
        completeRowStatistics<kDepth, kKeyWarps>(state, reinterpret_cast<float*>(shared), queryWarp);
    }
    if (!normalized || tiles > p.stages)
    {
        walkKeys(true, [&](__half const* stage, int32_t firstKey) {
            float scores[kWarpKeys / 8][4];
            scoreTile<kDepth, kWarpKeys, kGrids>(scores, query, stage, p, scoreScale, maskRows, firstKey, row0);
            ProbabilityFragments<kWarpKeys> probabilities;
            if (normalized)
            {
                roundedProbabilities<kDepth, kWarpKeys, kGrids>(scores, state, p, probabilities);
            }
            else
            {
                softmaxTile<kDepth, kWarpKeys>(scores, state);
                packProbabilities<kWarpKeys>(scores, probabilities);
            }
            accumulateTile<kDepth, kWarpKeys>(probabilities, stage + kTileKeys * kPitch, state);
        });
    }
    if constexpr (kKeyWarps > 1)
    {
        mergeSplits<kDepth, kKeyWarps>(state, reinterpret_cast<float*>(shared), queryWarp, split, normalized);
        if (split != 0)
        {
            return;
        }
    }
    storeRows<kDepth>(state, p, p.output + starts.output, row0, normalized, outputScale);
}

OperandView viewOf(backend::AttentionGeometry const& g, backend::AttentionGeometry::Operand const& operand)
{
    OperandView view{};
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        view.batch[axis] = operand.batch[axis];
    }
    view.row = operand.row;
    view.column = operand.column;
    return view;
}

//! Whether an operand's rows can be moved `elements` halves at a time: contiguous columns, rows and batches starting
//! at multiples of `elements`, as many columns, and data aligned to the group.
bool movesInGroupsOf(int64_t elements, void const* data, backend::AttentionGeometry const& g,
    backend::AttentionGeometry::Operand const& operand, int64_t columns)
{
    auto const bytes = static_cast<uintptr_t>(elements * 2);
    bool aligned = reinterpret_cast<uintptr_t>(data) % bytes == 0 && operand.column == 1 && operand.row % elements == 0
        && columns % elements == 0;
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        aligned = aligned && operand.batch[axis] % elements == 0;
    }
    return aligned;
}

//! The bytes of one stage of keys and values: kTileKeys rows of each, kDepth + 8 halves apart.
template <int kDepth, int kTileKeys>
constexpr size_t stageBytes()
{
    return size_t{2} * kTileKeys * (kDepth + 8) * sizeof(__half);
}

//! The most shared memory a block's stages take where every tile of keys has one: enough for ViT's 197 keys at depth
//! 64 (four stages, 72 KB), and little enough that two blocks share a multiprocessor.
constexpr size_t kResidentStagesBytes = size_t{96} << 10;

//! Queues the kernel compiled for `kGrids` with problem.stages stages of shared memory.
template <int kDepth, int kTileKeys, int kQueryWarps, Grids kGrids>
void queue(HalfProblem const& problem, unsigned grid, cudaStream_t stream)
{
    constexpr auto kernel = attentionKernel<kDepth, kTileKeys, kQueryWarps, kGrids>;
    size_t const bytes = static_cast<size_t>(problem.stages) * stageBytes<kDepth, kTileKeys>();
    if (bytes > size_t{48} << 10)
    {
        attention::grantSharedMemory<kernel>(bytes, "attention: allowing the kernel its shared memory");
    }
    kernel<<<grid, kThreads, bytes, stream>>>(problem);
}

//! Launches the kernel of these parameters, compiled for the problem's `grids`.
template <int kDepth, int kTileKeys, int kQueryWarps>
void start(HalfProblem const& problem, Grids grids, unsigned grid, cudaStream_t stream)
{
    switch (grids)
    {
    case Grids::kNone: queue<kDepth, kTileKeys, kQueryWarps, Grids::kNone>(problem, grid, stream); break;
    case Grids::kFp8: queue<kDepth, kTileKeys, kQueryWarps, Grids::kFp8>(problem, grid, stream); break;
    case Grids::kInt8: queue<kDepth, kTileKeys, kQueryWarps, Grids::kInt8>(problem, grid, stream); break;
    case Grids::kEither: queue<kDepth, kTileKeys, kQueryWarps, Grids::kEither>(problem, grid, stream); break;
    }
}

//! Launches the kernel with as many queries per block as keep the GPU's multiprocessors busy: 64 (four warps of
//! queries) where there are enough of them, else 32 or 16 with the keys split between the block's warps.
template <int kDepth, int kTileKeys, int kFewestQueryWarps>
void launch(HalfProblem& problem, Grids grids, int64_t batches, int32_t multiprocessors, cudaStream_t stream)
{
    auto const blocksWith = [&](int32_t queryWarps) {
        return batches * ((problem.queries + queryWarps * kWarpQueries - 1) / (queryWarps * kWarpQueries));
    };
    int32_t queryWarps = kWarps;
    while (queryWarps > kFewestQueryWarps && blocksWith(queryWarps) < 2 * multiprocessors)
    {
        queryWarps /= 2;
    }
    int64_t const blocks = blocksWith(queryWarps);
    if (blocks > INT32_MAX)
    {
        throw std::invalid_argument("attention: " + std::to_string(blocks) + " blocks of queries are too many");
    }
    problem.queryTiles = static_cast<int32_t>(blocks / batches);
    // Where the probabilities are rounded, a stage for every tile of keys, as many as kResidentStagesBytes holds, so
    // that the kernel's two walks of the keys copy and round them once.
    int32_t const tiles = (problem.keyCount + kTileKeys - 1) / kTileKeys;
    auto const residentStages = static_cast<int32_t>(kResidentStagesBytes / stageBytes<kDepth, kTileKeys>());
    bool const roundsProbabilities = grids != Grids::kNone && problem.probabilitiesRounding.rounds;
    problem.stages = roundsProbabilities && tiles > 2 && tiles <= residentStages ? tiles : 2;
    auto const grid = static_cast<unsigned>(blocks);
    if (queryWarps == 4)
    {
        start<kDepth, kTileKeys, 4>(problem, grids, grid, stream);
    }
    else if (queryWarps == 2)
    {
        start<kDepth, kTileKeys, 2>(problem, grids, grid, stream);
    }
    else if constexpr (kFewestQueryWarps == 1)
    {
        start<kDepth, kTileKeys, 1>(problem, grids, grid, stream);
    }
    check(cudaGetLastError(), "attention: launching the kernel");
}

//! The multiprocessors of the current device, asked once per process: the kernel launches at each enqueue, where a
//! driver query would cost host time, and a process's contexts are taken to run on GPUs of one kind.
int32_t multiprocessorCount()
{
    static int32_t const count = cuda::multiprocessorCount("attention");
    return count;
}

//! The shared memory a block may have on the current device, asked once per process as multiprocessorCount is.
int32_t sharedMemoryPerBlock()
{
    static int32_t const bytes = cuda::sharedMemoryPerBlock("attention");
    return bytes;
}

//! The operands' one type, FP16 or FP32; throws std::invalid_argument for others, mixed types, or a mask of another.
DataType checkOperands(LayerInputs const& inputs, TensorView const& output, bool masked)
{
    DataType const type = output.type;
    if (type != DataType::kHALF && type != DataType::kFLOAT)
    {
        throw std::invalid_argument("attention: the CUDA kernels take FP16 or FP32 operands");
    }
    for (ConstTensorView const* operand : {&inputs.at(0), &inputs.at(1), &inputs.at(2)})
    {
        if (operand->type != type)
        {
            throw std::invalid_argument("attention: query, keys, values and output must have one type");
        }
    }
    if (masked && inputs[3].type != DataType::kFLOAT && inputs[3].type != DataType::kHALF)
    {
        throw std::invalid_argument("attention: the CUDA kernels take an FP32 or FP16 mask");
    }
    return type;
}

attention::Rounding roundingOf(network::AttentionRounding const& rounding)
{
    return attention::Rounding{rounding.factor, rounding.scale, 1.0F / rounding.scale, rounding.rounds(),
        rounding.type == nvinfer1::DataType::kFP8};
}

//! The grids of the layer's roundings, for which its kernel is compiled.
Grids gridsOf(network::AttentionParams const& params)
{
    bool fp8 = false;
    bool int8 = false;
    for (network::AttentionRounding const* rounding : {&params.queryRounding, &params.keysRounding,
             &params.valuesRounding, &params.scoresRounding, &params.probabilitiesRounding})
    {
        bool const onFp8 = rounding->type == nvinfer1::DataType::kFP8; // as roundingOf's `fp8`: else INT8's grid
        fp8 = fp8 || (rounding->rounds() && onFp8);
        int8 = int8 || (rounding->rounds() && !onFp8);
    }
    return fp8 && int8 ? Grids::kEither : fp8 ? Grids::kFp8 : int8 ? Grids::kInt8 : Grids::kNone;
}

//! The problem the kernels read, on operands of type T, without the FP16 kernel's vector flags.
template <typename T>
attention::Problem<T> problemOf(network::AttentionParams const& params, LayerInputs const& inputs,
    TensorView const& output, backend::AttentionGeometry const& g)
{
    bool const masked = inputs.size() > 3 && inputs[3].data != nullptr;
    attention::Problem<T> problem{};
    // Each operand's first matrix: the kernels add only the batch strides to these.
    problem.query = static_cast<T const*>(inputs[0].data) + g.queryLayout.start;
    problem.keys = static_cast<T const*>(inputs[1].data) + g.keyLayout.start;
    problem.values = static_cast<T const*>(inputs[2].data) + g.valueLayout.start;
    problem.mask = masked ? inputs[3].data : nullptr;
    problem.output = static_cast<T*>(output.data);
    problem.maskType = masked ? inputs[3].type : DataType::kFLOAT;
    problem.queries = static_cast<int32_t>(g.queries);
    problem.keyCount = static_cast<int32_t>(g.keys);
    problem.depth = static_cast<int32_t>(g.depth);
    problem.valueDepth = static_cast<int32_t>(g.valueDepth);
    problem.scale = params.scale;
    problem.zeroNaN = params.zeroNaNProbabilities;
    problem.queryRounding = roundingOf(params.queryRounding);
    problem.keysRounding = roundingOf(params.keysRounding);
    problem.valuesRounding = roundingOf(params.valuesRounding);
    problem.scoresRounding = roundingOf(params.scoresRounding);
    problem.probabilitiesRounding = roundingOf(params.probabilitiesRounding);
    problem.stages = 2;
    problem.batchAxes = g.batchAxes;
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        problem.batchExtents[axis] = g.batchExtents[axis];
    }
    problem.queryView = viewOf(g, g.queryLayout);
    problem.keyView = viewOf(g, g.keyLayout);
    problem.valueView = viewOf(g, g.valueLayout);
    problem.maskView = viewOf(g, g.maskLayout);
    problem.outputView = viewOf(g, g.outputLayout);
    return problem;
}

void runHalf(HalfProblem problem, Grids grids, backend::AttentionGeometry const& g, cudaStream_t stream)
{
    problem.vectorQuery = movesInGroupsOf(8, problem.query, g, g.queryLayout, g.depth);
    problem.vectorKeys = movesInGroupsOf(8, problem.keys, g, g.keyLayout, g.depth);
    problem.vectorValues = movesInGroupsOf(8, problem.values, g, g.valueLayout, g.valueDepth);
    problem.pairedOutput = movesInGroupsOf(2, problem.output, g, g.outputLayout, g.valueDepth);
    withKernelDepth(std::max(g.depth, g.valueDepth), [&](auto depth) {
        // Tiles of 64 keys; at depth 128, of 32 keys in 16-key steps, two warps a tile.
        constexpr int kTileKeys = depth() == 128 ? 32 : 64;
        constexpr int kFewestQueryWarps = depth() == 128 ? 2 : 1;
        launch<depth(), kTileKeys, kFewestQueryWarps>(problem, grids, g.batches, multiprocessorCount(), stream);
    });
}

} // namespace

void runAttentionKernel(
    network::AttentionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    bool const masked = inputs.size() > 3 && inputs[3].data != nullptr;
    TensorView const& output = outputs.at(0);
    DataType const type = checkOperands(inputs, output, masked);
    backend::AttentionGeometry const g = backend::attentionGeometry(
        {inputs[0].shape, inputs[1].shape, inputs[2].shape, masked ? &inputs[3].shape : nullptr, output.shape}, params);
    int64_t const depth = std::max(g.depth, g.valueDepth);
    if (depth > kMaxAttentionDepth || g.queries > INT32_MAX || g.keys > INT32_MAX)
    {
        throw std::invalid_argument("attention: the CUDA kernels take depths of up to "
            + std::to_string(kMaxAttentionDepth) + " (not " + std::to_string(depth)
            + ") and fewer than 2^31 queries and keys");
    }
    if (output.count() == 0)
    {
        return;
    }
    if (type == DataType::kHALF)
    {
        runHalf(problemOf<__half>(params, inputs, output, g), gridsOf(params), g, stream);
        return;
    }
    if (params.rounds())
    {
        throw std::invalid_argument("attention: the FP32 kernel does not round its values as Q/DQ pairs do");
    }
    attention::Problem<float> problem = problemOf<float>(params, inputs, output, g);
    attention::launchFp32(problem, g.batches, multiprocessorCount(), sharedMemoryPerBlock(), stream);
}

} // namespace kiln::cuda
