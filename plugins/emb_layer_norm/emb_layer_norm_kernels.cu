#include "emb_layer_norm_kernels.h"

#include "common/block_reduce.cuh"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One block per token (striding over tokens when there are more than blocks); the sum of the three embeddings is
// recomputed in each layer-norm pass instead of being buffered, so any hidden size works.
template <typename T>
__global__ void embLayerNormKernel(int32_t const* wordIds, int32_t const* tokenIds, EmbeddingTables tables, T* output,
    int64_t sequence, int64_t batch, float epsilon)
{
    int64_t const hidden = tables.hidden;
    for (int64_t row = blockIdx.x; row < sequence * batch; row += gridDim.x)
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

// One thread per sequence: masks are short ([S, B] int32), and the scan stops at the first zero.
__global__ void maskIndexKernel(int32_t const* mask, int32_t* maskIndex, int64_t sequence, int64_t batch)
{
    for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < batch;
         b += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t first = sequence;
        for (int64_t s = 0; s < sequence; ++s)
        {
            if (mask[s * batch + b] == 0)
            {
                first = s;
                break;
            }
        }
        maskIndex[b] = static_cast<int32_t>(first);
    }
}

} // namespace

cudaError_t launchEmbLayerNorm(int32_t const* wordIds, int32_t const* tokenIds, EmbeddingTables const& tables,
    void* output, bool half, int64_t sequence, int64_t batch, float epsilon, cudaStream_t stream)
{
    int64_t const rows = sequence * batch;
    if (rows == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, 65535 * 16));
    if (half)
    {
        embLayerNormKernel<<<blocks, kThreads, 0, stream>>>(
            wordIds, tokenIds, tables, static_cast<__half*>(output), sequence, batch, epsilon);
    }
    else
    {
        embLayerNormKernel<<<blocks, kThreads, 0, stream>>>(
            wordIds, tokenIds, tables, static_cast<float*>(output), sequence, batch, epsilon);
    }
    return cudaGetLastError();
}

cudaError_t launchMaskIndex(
    int32_t const* mask, int32_t* maskIndex, int64_t sequence, int64_t batch, cudaStream_t stream)
{
    if (batch == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 128;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((batch + kThreads - 1) / kThreads, 65535));
    maskIndexKernel<<<blocks, kThreads, 0, stream>>>(mask, maskIndex, sequence, batch);
    return cudaGetLastError();
}

} // namespace kiln::plugins
