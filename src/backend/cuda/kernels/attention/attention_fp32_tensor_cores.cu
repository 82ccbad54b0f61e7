// The attention layer on FP32 operands on the tensor cores, to FP32's accuracy. Each operand x is split into big(x),
// x rounded to TF32's 10 bits of mantissa, and small(x), the rest x - big(x) rounded likewise, and each product a . b
// is summed as small(a) . big(b) + big(a) . small(b) + big(a) . big(b): three mma.sync m16n8k8 on TF32 with FP32
// accumulation ("3xTF32"). Only small(a) . small(b) is left out, about 2^-22 of a product where one TF32 product loses
// 2^-11, so the outputs keep FP32 attention's tolerance of the CPU reference. PyTorch's FP32 scaled-dot-product
// attention (its memory-efficient kernel) multiplies the same way on GPUs of compute capability 8.0 on, whatever its
// TF32 setting says.
//
// Otherwise the kernel is attention.cu's FP16 one made plain: a block of four warps takes 64 queries of one batch, each
// warp 16, and walks the keys 64 at a time with online softmax (attention_fragments.cuh). The block reads each tile
// through its layout once and splits it as it stores it in shared memory, each element's two parts side by side in the
// order the fragments take them, so that a lane loads an operand's big and small registers with one 16-byte read; then
// every warp multiplies it. The probabilities go from the first product's accumulators into the second product's
// operands in registers: an accumulator tile holds keys 2t and 2t + 1 of a row where an operand fragment holds keys t
// and t + 4, so the second product takes each 8-key step's keys in the order 0, 2, 4, 6, 1, 3, 5, 7 (the values' rows
// are stored in pairs to match), which is the same sum.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/attention/attention_fragments.cuh"
#include "backend/cuda/kernels/attention/attention_launch.cuh"
#include "backend/cuda/kernels/attention/attention_problem.cuh"
#include "backend/cuda/kernels/tensor_core.cuh"
#include "backend/cuda/layer_kernels.h"

#include <algorithm>

namespace kiln::cuda::attention
{
namespace
{

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kWarpQueries = 16; //!< one mma tile high
constexpr int kBlockQueries = kWarps * kWarpQueries;
constexpr int kTileKeys = 64;

//! x rounded to TF32's 10 bits of mantissa, to nearest with ties away from zero, as FP32 bits whose low 13 are zero.
//! Infinities and NaN stay as they are.
__device__ inline float roundToTf32(float x)
{
    uint32_t const bits = __float_as_uint(x);
    return isfinite(x) ? __uint_as_float((bits + 0x1000U) & 0xFFFFE000U) : x;
}

//! x as its two TF32 parts, big then small. An infinite x's small part is 0 rather than NaN (inf - inf), so that the
//! products are what FP32's would be.
__device__ inline float2 splitTf32(float x)
{
    float const big = roundToTf32(x);
    return float2{big, isinf(big) ? 0.0F : roundToTf32(x - big)};
}

//! Shared memory, in floats, for depths up to kDepth (a multiple of 16; zeros past the problem's depths).
//!
//! The queries and a tile of keys are stored by row: column c of row r at r * kRowPitch + (c / 8) * 16 +
//! (c % 4) * 4 + (c % 8 / 4) * 2, big part first. A lane then reads the parts of columns t and t + 4 of an 8-column
//! step, its a or b fragment, as one float4. The rows' 16 floats of padding put rows g and g + 1 in different halves
//! of the banks, so the reads of a quarter warp (rows g and g + 1, t = 0..3) meet no conflict.
//!
//! A tile of values is stored by pairs of keys: column c of key k at (k / 2) * kPairPitch + c * 4 + (k % 2) * 2, big
//! part first, so that a lane reads keys 2t and 2t + 1 of its column, its b fragment, as one float4; the 8 floats of
//! padding a pair put neighbouring pairs 8 banks apart.
template <int kDepth>
struct Layout
{
    static_assert(kDepth % 16 == 0, "rows of whole 8-column steps, padded to 16 banks");
    static constexpr int kRowPitch = 2 * kDepth + 16;
    static constexpr int kPairPitch = 4 * kDepth + 8;
    static constexpr int kQueryFloats = kBlockQueries * kRowPitch;
    static constexpr int kKeyFloats = kTileKeys * kRowPitch;
    static constexpr int kValueFloats = kTileKeys / 2 * kPairPitch;
    static constexpr size_t kSharedBytes = sizeof(float) * (kQueryFloats + kKeyFloats + kValueFloats);

    __device__ static int byRow(int32_t row, int32_t column)
    {
        return row * kRowPitch + column / 8 * 16 + column % 4 * 4 + column % 8 / 4 * 2;
    }

    __device__ static int byPair(int32_t key, int32_t column)
    {
        return key / 2 * kPairPitch + column * 4 + key % 2 * 2;
    }
};

//! A thread's share of rows [first, first + kRows) of an operand, columns [0, kColumns), held in registers between
//! reading them (fetch) and storing them split into shared memory (store), so that all of a thread's reads are in
//! flight at once, and, where the registers allow, during the previous tile's products. Each thread keeps one column
//! and steps down the rows, so that its source moves by a fixed step and a warp reads neighbouring columns.
template <int kRows, int kColumns>
struct TileShare
{
    static_assert(kThreads % kColumns == 0, "every pass covers whole rows");
    static constexpr int kRowStep = kThreads / kColumns;
    static constexpr int kCount = kRows / kRowStep;
    float values[kCount];

    //! Reads the share; zeros past `rowCount` rows and `columnCount` columns.
    __device__ void fetch(
        float const* base, OperandView const& view, int32_t first, int32_t rowCount, int32_t columnCount)
    {
        int32_t const c = static_cast<int32_t>(threadIdx.x) % kColumns;
        int32_t const r = static_cast<int32_t>(threadIdx.x) / kColumns;
        bool const insideColumns = c < columnCount;
        float const* source = base + static_cast<int64_t>(first + r) * view.row + c * view.column;
        int64_t const step = kRowStep * view.row;
#pragma unroll
        for (int i = 0; i < kCount; ++i, source += step)
        {
            values[i] = insideColumns && first + r + i * kRowStep < rowCount ? *source : 0.0F;
        }
    }

    //! Stores each value's two parts at tile + place(row, column).
    template <typename Place>
    __device__ void store(float* tile, Place place) const
    {
        int32_t const c = static_cast<int32_t>(threadIdx.x) % kColumns;
        int32_t const r = static_cast<int32_t>(threadIdx.x) / kColumns;
#pragma unroll
        for (int i = 0; i < kCount; ++i)
        {
            *reinterpret_cast<float2*>(tile + place(r + i * kRowStep, c)) = splitTf32(values[i]);
        }
    }
};

//! One product's operand fragment as its big and small registers.
struct SplitFragment
{
    uint32_t big[4];
    uint32_t small[4];
};

//! d += a . b in 3xTF32; b's parts as a lane read them: big(b0), small(b0), big(b1), small(b1). The small terms
//! first, while the sum is small.
__device__ inline void multiplySplit(float (&d)[4], SplitFragment const& a, float4 const& b)
{
    mma1688(d, a.small, __float_as_uint(b.x), __float_as_uint(b.z));
    mma1688(d, a.big, __float_as_uint(b.y), __float_as_uint(b.w));
    mma1688(d, a.big, __float_as_uint(b.x), __float_as_uint(b.z));
}

//! The scores of the warp's 16 rows (`warpQueries`, stored by row) against the tile's 64 keys, times `scale`.
template <int kDepth>
__device__ inline void scoreTile(
    float (&scores)[kTileKeys / 8][4], float const* warpQueries, float const* keys, float scale)
{
    using Shape = Layout<kDepth>;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const g = lane / 4;
    int32_t const t = lane % 4;
#pragma unroll
    for (int n = 0; n < kTileKeys / 8; ++n)
    {
        scores[n][0] = scores[n][1] = scores[n][2] = scores[n][3] = 0.0F;
    }
#pragma unroll
    for (int k = 0; k < kDepth / 8; ++k)
    {
        // a: rows g (a0, a2) and g + 8 (a1, a3), columns t (a0, a1) and t + 4.
        float4 const upper = *reinterpret_cast<float4 const*>(warpQueries + g * Shape::kRowPitch + k * 16 + t * 4);
        float4 const lower
            = *reinterpret_cast<float4 const*>(warpQueries + (g + 8) * Shape::kRowPitch + k * 16 + t * 4);
        SplitFragment const query{
            {__float_as_uint(upper.x), __float_as_uint(lower.x), __float_as_uint(upper.z), __float_as_uint(lower.z)},
            {__float_as_uint(upper.y), __float_as_uint(lower.y), __float_as_uint(upper.w), __float_as_uint(lower.w)}};
#pragma unroll
        for (int n = 0; n < kTileKeys / 8; ++n)
        {
            // b: key n * 8 + g, columns t and t + 4.
            multiplySplit(scores[n], query,
                *reinterpret_cast<float4 const*>(keys + (n * 8 + g) * Shape::kRowPitch + k * 16 + t * 4));
        }
    }
#pragma unroll
    for (int n = 0; n < kTileKeys / 8; ++n)
    {
#pragma unroll
        for (int e = 0; e < 4; ++e)
        {
            scores[n][e] *= scale;
        }
    }
}

//! output += probabilities . values for the warp's rows. Step n's operand takes accumulator tile n: keys 2t (a0, a1)
//! and 2t + 1 (a2, a3) of rows g and g + 8, which the values' pairs match.
template <int kDepth>
__device__ inline void accumulateTile(
    float const (&probabilities)[kTileKeys / 8][4], float const* values, RowState<kDepth>& state)
{
    using Shape = Layout<kDepth>;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const g = lane / 4;
    int32_t const t = lane % 4;
#pragma unroll
    for (int n = 0; n < kTileKeys / 8; ++n)
    {
        float const(&p)[4] = probabilities[n];
        float2 const parts[4] = {splitTf32(p[0]), splitTf32(p[2]), splitTf32(p[1]), splitTf32(p[3])};
        SplitFragment const weights{{__float_as_uint(parts[0].x), __float_as_uint(parts[1].x),
                                        __float_as_uint(parts[2].x), __float_as_uint(parts[3].x)},
            {__float_as_uint(parts[0].y), __float_as_uint(parts[1].y), __float_as_uint(parts[2].y),
                __float_as_uint(parts[3].y)}};
        float const* const pair = values + (n * 4 + t) * Shape::kPairPitch + g * 4;
#pragma unroll
        for (int m = 0; m < kDepth / 8; ++m)
        {
            // b: keys n * 8 + 2t and n * 8 + 2t + 1, column m * 8 + g.
            multiplySplit(state.output[m], weights, *reinterpret_cast<float4 const*>(pair + m * 32));
        }
    }
}

//! Writes the warp's rows: output / sum, or for a row whose probabilities are all NaN (every score -inf, or a NaN or
//! +inf score, as on the CPU) NaN, or 0 where NaN probabilities count as zero.
template <int kDepth>
__device__ inline void storeRows(RowState<kDepth>& state, Problem<float> const& p, float* output, int32_t row0)
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
        bool const nanRow = state.maximum[half] == -INFINITY || isnan(sum) || sum == 0.0F;
        float const inverse = 1.0F / sum;
        float* const rowOutput = output + static_cast<int64_t>(row) * p.outputView.row;
#pragma unroll
        for (int n = 0; n < kDepth / 8; ++n)
        {
#pragma unroll
            for (int e = 0; e < 2; ++e)
            {
                int32_t const column = n * 8 + 2 * t + e;
                if (column < p.valueDepth)
                {
                    rowOutput[static_cast<int64_t>(column) * p.outputView.column]
                        = nanRow ? (p.zeroNaN ? 0.0F : NAN) : state.output[n][2 * half + e] * inverse;
                }
            }
        }
    }
}

//! kDepth: the query's and the values' depths rounded up to a multiple of 16 (zeros past them).
template <int kDepth>
__global__ void __launch_bounds__(kThreads) splitTf32AttentionKernel(Problem<float> p)
{
    using Shape = Layout<kDepth>;
    extern __shared__ float4 sharedMemory[];
    float* const queries = reinterpret_cast<float*>(sharedMemory);
    float* const keys = queries + Shape::kQueryFloats;
    float* const values = keys + Shape::kKeyFloats;

    uint32_t const batch = blockIdx.x / static_cast<uint32_t>(p.queryTiles);
    int32_t const firstQuery = static_cast<int32_t>(blockIdx.x % static_cast<uint32_t>(p.queryTiles)) * kBlockQueries;
    BatchStarts const starts = batchStarts(p, batch);
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const g = static_cast<int32_t>(threadIdx.x) % 32 / 4;
    auto const byRow = [](int32_t row, int32_t column) { return Shape::byRow(row, column); };
    auto const byPair = [](int32_t key, int32_t column) { return Shape::byPair(key, column); };

    {
        TileShare<kBlockQueries, kDepth> query;
        query.fetch(p.query + starts.query, p.queryView, firstQuery, p.queries, p.depth);
        query.store(queries, byRow);
    }
    float const* const warpQueries = queries + warp * kWarpQueries * Shape::kRowPitch;

    RowState<kDepth> state{};
    state.maximum[0] = state.maximum[1] = -INFINITY;
    int32_t const row0 = firstQuery + warp * kWarpQueries + g;
    int64_t const maskRows[2]{starts.mask + static_cast<int64_t>(row0) * p.maskView.row,
        starts.mask + static_cast<int64_t>(row0 + 8) * p.maskView.row};
    float const scale = p.scale * kLog2e; // the scores in base-2 units
    // Up to depth 64 the next tile is read while this one is multiplied (64 registers a thread); deeper tiles are
    // read after, the keys' reads at once, then the values'.
    constexpr bool kReadsAhead = kDepth <= 64;
    TileShare<kTileKeys, kDepth> keyShare;
    TileShare<kTileKeys, kDepth> valueShare;
    auto const fetchTile = [&](int32_t first) {
        keyShare.fetch(p.keys + starts.keys, p.keyView, first, p.keyCount, p.depth);
        valueShare.fetch(p.values + starts.values, p.valueView, first, p.keyCount, p.valueDepth);
    };
    if (kReadsAhead)
    {
        fetchTile(0);
    }
    for (int32_t first = 0; first < p.keyCount; first += kTileKeys)
    {
        __syncthreads(); // every warp is done with the previous tiles
        if (!kReadsAhead)
        {
            keyShare.fetch(p.keys + starts.keys, p.keyView, first, p.keyCount, p.depth);
            keyShare.store(keys, byRow);
            valueShare.fetch(p.values + starts.values, p.valueView, first, p.keyCount, p.valueDepth);
            valueShare.store(values, byPair);
        }
        else
        {
            keyShare.store(keys, byRow);
            valueShare.store(values, byPair);
        }
        if (kReadsAhead && first + kTileKeys < p.keyCount)
        {
            fetchTile(first + kTileKeys);
        }
        __syncthreads(); // the tiles, and the queries before the first, are stored
        float scores[kTileKeys / 8][4];
        scoreTile<kDepth>(scores, warpQueries, keys, scale);
        boundTile<kTileKeys>(scores, p, maskRows, first, row0);
        softmaxTile<kDepth, kTileKeys>(scores, state);
        accumulateTile<kDepth>(scores, values, state);
    }
    storeRows<kDepth>(state, p, p.output + starts.output, row0);
}

template <int kDepth>
void launchDepth(Problem<float>& problem, int64_t batches, cudaStream_t stream)
{
    using Shape = Layout<kDepth>;
    constexpr auto kernel = splitTf32AttentionKernel<kDepth>;
    unsigned const blocks = queryBlocks(problem, batches, kBlockQueries);
    grantSharedMemory<kernel>(Shape::kSharedBytes, "attention: granting the FP32 tensor-core kernel its shared memory");
    kernel<<<blocks, kThreads, Shape::kSharedBytes, stream>>>(problem);
    check(cudaGetLastError(), "attention: launching the FP32 tensor-core kernel");
}

} // namespace

bool splitTf32Suits(
    Problem<float> const& problem, int64_t batches, int32_t multiprocessors, int32_t sharedMemoryPerBlock)
{
    size_t const sharedBytes = withKernelDepth(
        std::max(problem.depth, problem.valueDepth), [](auto depth) { return Layout<depth()>::kSharedBytes; });
    return sharedBytes <= static_cast<size_t>(sharedMemoryPerBlock)
        && batches * ((problem.queries + kBlockQueries - 1) / kBlockQueries) >= multiprocessors;
}

void launchSplitTf32(Problem<float>& problem, int64_t batches, cudaStream_t stream)
{
    withKernelDepth(std::max(problem.depth, problem.valueDepth),
        [&](auto depth) { launchDepth<depth()>(problem, batches, stream); });
}

} // namespace kiln::cuda::attention
