// The CUDA side of CustomEmbLayerNormPluginDynamic (emb_layer_norm_kernels.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! The embedding tables and layer-norm weights, FP32 device memory.
struct EmbeddingTables
{
    float const* word;
    float const* token;
    float const* position;
    float const* gamma;
    float const* beta;
    int64_t wordRows;
    int64_t tokenRows;
    int64_t hidden;
};

//! output[s, b, :] = LayerNorm(word[wordIds[s, b]] + token[tokenIds[s, b]] + position[s]) for ids of [S, B]
//! (a row whose word or token id is out of range sums to zeros); output is FP32, or FP16 where `half`. In the same
//! launch, maskIndex[b] = the first s with mask[s, b] == 0, or S where there is none (mask is [S, B]).
cudaError_t launchEmbLayerNorm(int32_t const* wordIds, int32_t const* tokenIds, int32_t const* mask,
    EmbeddingTables const& tables, void* output, int32_t* maskIndex, bool half, int64_t sequence, int64_t batch,
    float epsilon, cudaStream_t stream);

} // namespace kiln::plugins
