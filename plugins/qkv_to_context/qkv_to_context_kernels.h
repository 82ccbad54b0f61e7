// The CUDA side of CustomQKVToContextPluginDynamic (qkv_to_context_kernels.cu): two cuBLAS strided-batched GEMMs
// around a softmax kernel.
#pragma once

#include "cublas_slot.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

struct AttentionProblem
{
    int64_t sequence;         //!< S
    int64_t batch;            //!< B
    int64_t heads;            //!< N
    int64_t headSize;         //!< H
    bool half;                //!< FP16 tensors (else FP32)
    int32_t const* maskIndex; //!< [B] valid lengths in device memory, or null for all S
};

//! The device workspace the attention needs: FP32 scores and the probabilities, B * N * S * S each.
size_t attentionWorkspaceBytes(int64_t sequence, int64_t batch, int64_t heads);

//! output [S, B, N * H] = attention of qkv [S, B, N, 3, H]; throws PluginError naming `plugin` on failure.
void runAttention(char const* plugin, CublasSlot& cublas, void const* qkv, void* output, void* workspace,
    AttentionProblem const& problem, cudaStream_t stream);

} // namespace kiln::plugins
