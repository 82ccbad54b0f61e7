#include "emb_layer_norm_kernels.h"

#include "common/block_reduce.cuh"
#include "common/warp_layer_norm.cuh"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// maskIndex[b] for the sequences b this warp takes (warp w of the first maskBlocks blocks takes sequence
// blockIdx.x * warps + w): the first s with mask[s, b] == 0, else S. Each lane checks every 32nd position,
// independent loads the compiler can keep in flight, and the warp keeps the smallest.
__device__ void maskIndexOfWarp(int32_t const* mask, int32_t* maskIndex, int64_t sequence, int64_t batch)
{
    int const lane = static_cast<int>(threadIdx.x % 32);
    int64_t const b = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
    if (b >= batch)
    {
        return;
    }
    int64_t first = sequence;
#pragma unroll 4
    for (int64_t s = lane; s < sequence; s += 32)
    {
        first = mask[s * batch + b] == 0 && s < first ? s : first;
    }
    for (int offset = 16; offset > 0; offset /= 2)
    {
        first = min(first, static_cast<int64_t>(__shfl_xor_sync(0xffffffffU, first, offset)));
    }
    if (lane == 0)
    {
        maskIndex[b] = static_cast<int32_t>(first);
    }
}

// The sum of the three embeddings of token `row` ([S, B]: position row / B) over chunk c of this lane, or zeros
// where an id is out of range.
template <int kVec>
__device__ void embeddingSum(EmbeddingTables const& tables, int64_t word, int64_t token, int64_t position, bool valid,
    int64_t at, float (&sum)[kVec])
{
    if (!valid)
    {
#pragma unroll
        for (int i = 0; i < kVec; ++i)
        {
            sum[i] = 0.F;
        }
        return;
    }
    float tokenValues[kVec];
    float positionValues[kVec];
    loadFloats(tables.word + word * tables.hidden + at, sum);
    loadFloats(tables.token + token * tables.hidden + at, tokenValues);
    loadFloats(tables.position + position * tables.hidden + at, positionValues);
#pragma unroll
    for (int i = 0; i < kVec; ++i)
    {
        sum[i] = sum[i] + tokenValues[i] + positionValues[i];
    }
}

// The first maskBlocks blocks compute the mask index, the rest one token per warp with the row in registers
// (warp_layer_norm.cuh): the three table rows are read once, in 16-byte vectors, and the output written once.
template <typename T, int kChunks>
__global__ void __launch_bounds__(kWarpRowsPerBlock * 32)
    embLayerNormWarpKernel(int32_t const* wordIds, int32_t const* tokenIds, int32_t const* mask, EmbeddingTables tables,
        T* output, int32_t* maskIndex, int64_t sequence, int64_t batch, int64_t maskBlocks, float epsilon)
{
    constexpr int kVec = kVectorElements<T>;
    if (blockIdx.x < maskBlocks)
    {
        maskIndexOfWarp(mask, maskIndex, sequence, batch);
        return;
    }
    int const lane = static_cast<int>(threadIdx.x % 32);
    int64_t const row = (static_cast<int64_t>(blockIdx.x) - maskBlocks) * kWarpRowsPerBlock + threadIdx.x / 32;
    if (row >= sequence * batch)
    {
        return; // the whole warp
    }
    int64_t const hidden = tables.hidden;
    int64_t const word = wordIds[row];
    int64_t const token = tokenIds[row];
    bool const valid = word >= 0 && word < tables.wordRows && token >= 0 && token < tables.tokenRows;
    float values[kChunks][kVec];
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, hidden))
        {
            embeddingSum(tables, word, token, row / batch, valid, chunkOffset<kVec>(c, lane), values[c]);
        }
    }
    warpLayerNorm(values, lane, hidden, tables.gamma, tables.beta, epsilon);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, hidden))
        {
            storeElements(values[c], output + row * hidden + chunkOffset<kVec>(c, lane));
        }
    }
}

// For hidden sizes the warp path does not take: the first maskBlocks blocks compute the mask index, the rest take one
// token per block (striding over tokens when there are more than blocks); the sum of the three embeddings is
// recomputed in each layer-norm pass instead of being buffered, so any hidden size works.
template <typename T>
__global__ void embLayerNormKernel(int32_t const* wordIds, int32_t const* tokenIds, int32_t const* mask,
    EmbeddingTables tables, T* output, int32_t* maskIndex, int64_t sequence, int64_t batch, int64_t maskBlocks,
    float epsilon)
{
    if (blockIdx.x < maskBlocks)
    {
        maskIndexOfWarp(mask, maskIndex, sequence, batch);
        return;
    }
    int64_t const hidden = tables.hidden;
    for (int64_t row = blockIdx.x - maskBlocks; row < sequence * batch; row += gridDim.x - maskBlocks)
    {
        int64_t const position = row / batch; // rows are [S, B]
        int64_t const word = wordIds[row];
        int64_t const token = tokenIds[row];
        bool const valid = word >= 0 && word < tables.wordRows && token >= 0 && token < tables.tokenRows;
        auto valueAt = [&](int64_t i) {
            return valid ? tables.word[word * hidden + i] + tables.token[token * hidden + i]
                    + tables.position[position * hidden + i]
                         : 0.F;
        };
        auto store = [&](int64_t i, float y) { output[row * hidden + i] = static_cast<T>(y); };
        layerNormBlockRow(hidden, valueAt, tables.gamma, tables.beta, epsilon, store);
    }
}

template <typename T>
struct WarpLaunch
{
    int32_t const* wordIds;
    int32_t const* tokenIds;
    int32_t const* mask;
    EmbeddingTables tables;
    T* output;
    int32_t* maskIndex;
    int64_t sequence;
    int64_t batch;
    float epsilon;
    cudaStream_t stream;

    template <int kChunks>
    cudaError_t operator()() const
    {
        int64_t const maskBlocks = (batch + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock;
        int64_t const rowBlocks = (sequence * batch + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock;
        embLayerNormWarpKernel<T, kChunks>
            <<<static_cast<unsigned>(maskBlocks + rowBlocks), kWarpRowsPerBlock * 32, 0, stream>>>(
                wordIds, tokenIds, mask, tables, output, maskIndex, sequence, batch, maskBlocks, epsilon);
        return cudaGetLastError();
    }
};

template <typename T>
cudaError_t launchTyped(int32_t const* wordIds, int32_t const* tokenIds, int32_t const* mask,
    EmbeddingTables const& tables, void* output, int32_t* maskIndex, int64_t sequence, int64_t batch, float epsilon,
    cudaStream_t stream)
{
    auto* out = static_cast<T*>(output);
    // The tables' rows start 16-byte aligned where their allocations do, since the hidden size is a multiple of the
    // 4 or 8 elements of a vector (which warpRowChunks checks).
    void const* const pointers[] = {output, tables.word, tables.token, tables.position};
    int const chunks = warpRowChunks(tables.hidden, sizeof(T), pointers, 4);
    int64_t const rows = sequence * batch;
    if (chunks > 0 && rows / kWarpRowsPerBlock + batch < (int64_t{1} << 30))
    {
        return withWarpChunks(
            chunks, WarpLaunch<T>{wordIds, tokenIds, mask, tables, out, maskIndex, sequence, batch, epsilon, stream});
    }
    int constexpr kThreads = 256;
    int64_t const maskBlocks = (batch + kThreads / 32 - 1) / (kThreads / 32);
    auto const blocks = static_cast<unsigned>(maskBlocks + std::max<int64_t>(1, std::min<int64_t>(rows, 65535 * 16)));
    embLayerNormKernel<<<blocks, kThreads, 0, stream>>>(
        wordIds, tokenIds, mask, tables, out, maskIndex, sequence, batch, maskBlocks, epsilon);
    return cudaGetLastError();
}

} // namespace

cudaError_t launchEmbLayerNorm(int32_t const* wordIds, int32_t const* tokenIds, int32_t const* mask,
    EmbeddingTables const& tables, void* output, int32_t* maskIndex, bool half, int64_t sequence, int64_t batch,
    float epsilon, cudaStream_t stream)
{
    if (batch == 0)
    {
        return cudaSuccess; // no tokens and no sequences
    }
    return half
        ? launchTyped<__half>(wordIds, tokenIds, mask, tables, output, maskIndex, sequence, batch, epsilon, stream)
        : launchTyped<float>(wordIds, tokenIds, mask, tables, output, maskIndex, sequence, batch, epsilon, stream);
}

} // namespace kiln::plugins
