#include "qkv_to_context_kernels.h"

#include "common/block_reduce.cuh"
#include "common/plugin_error.h"

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

namespace kiln::plugins
{
namespace
{

constexpr size_t kAlignment = 256;

size_t alignUp(size_t bytes)
{
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// One block per score row (one query of one head of one sequence): probabilities over the sequence's valid keys,
// zeros past them (and a row of zeros where a sequence has no valid key, rather than NaN).
template <typename T>
__global__ void maskedSoftmaxKernel(
    float const* scores, T* probs, int32_t const* maskIndex, int64_t rows, int64_t sequence, int64_t heads, float scale)
{
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        int64_t const batch = row / (heads * sequence); // rows are [B, N, S]
        int64_t valid = sequence;
        if (maskIndex != nullptr)
        {
            valid = min(max(static_cast<int64_t>(maskIndex[batch]), int64_t{0}), sequence);
        }
        float const* in = scores + row * sequence;
        T* out = probs + row * sequence;
        float localMax = -INFINITY;
        for (int64_t k = threadIdx.x; k < valid; k += blockDim.x)
        {
            localMax = fmaxf(localMax, in[k] * scale);
        }
        float const rowMax = blockMax(localMax);
        float localSum = 0.F;
        for (int64_t k = threadIdx.x; k < valid; k += blockDim.x)
        {
            localSum += __expf(in[k] * scale - rowMax);
        }
        float const sum = blockSum(localSum);
        for (int64_t k = threadIdx.x; k < sequence; k += blockDim.x)
        {
            out[k] = static_cast<T>(k < valid ? __expf(in[k] * scale - rowMax) / sum : 0.F);
        }
    }
}

void checkCublas(char const* plugin, cublasStatus_t status, char const* call)
{
    if (status != CUBLAS_STATUS_SUCCESS)
    {
        throw PluginError(std::string(plugin) + ": " + call + " failed with cuBLAS status " + std::to_string(status));
    }
}

cublasHandle_t handleOf(char const* plugin, CublasSlot& slot)
{
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (slot.handle == nullptr)
    {
        cublasHandle_t handle = nullptr;
        checkCublas(plugin, cublasCreate(&handle), "cublasCreate");
        slot.handle = {handle, [](void* made) { cublasDestroy(static_cast<cublasHandle_t>(made)); }};
    }
    return static_cast<cublasHandle_t>(slot.handle.get());
}

} // namespace

size_t attentionWorkspaceBytes(int64_t sequence, int64_t batch, int64_t heads)
{
    auto const count = static_cast<size_t>(std::max<int64_t>(sequence, 0) * std::max<int64_t>(sequence, 0)
        * std::max<int64_t>(batch, 0) * std::max<int64_t>(heads, 0));
    return alignUp(count * sizeof(float)) + alignUp(count * sizeof(float)); // probabilities take at most FP32's room
}

void runAttention(char const* plugin, CublasSlot& cublas, void const* qkv, void* output, void* workspace,
    AttentionProblem const& problem, cudaStream_t stream)
{
    int64_t const S = problem.sequence;
    int64_t const B = problem.batch;
    int64_t const N = problem.heads;
    int64_t const H = problem.headSize;
    if (S == 0 || B == 0)
    {
        return;
    }
    cublasHandle_t const handle = handleOf(plugin, cublas);
    checkCublas(plugin, cublasSetStream(handle, stream), "cublasSetStream");

    cudaDataType_t const type = problem.half ? CUDA_R_16F : CUDA_R_32F;
    size_t const elementBytes = problem.half ? 2 : 4;
    auto* scores = static_cast<float*>(workspace);
    void* probs = static_cast<char*>(workspace) + alignUp(static_cast<size_t>(B * N * S * S) * sizeof(float));
    auto const* base = static_cast<char const*>(qkv);
    // qkv is [S, B, N, 3, H]: head n of sequence b starts (b N + n) 3H elements into each token's row of B 3E, so one
    // stride of 3H walks the B N (sequence, head) pairs; Q, K and V of a head are H apart.
    int const tokenStride = static_cast<int>(B * N * 3 * H);
    long long const headStride = 3 * H;
    int const pairs = static_cast<int>(B * N);
    float const one = 1.F;
    float const zero = 0.F;

    // scores[b n][q][k] = K_k . Q_q: in cuBLAS's column-major terms, C (S x S, keys fastest) = K^T Q.
    checkCublas(plugin,
        cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(S), static_cast<int>(S),
            static_cast<int>(H), &one, base + H * elementBytes, type, tokenStride, headStride, base, type, tokenStride,
            headStride, &zero, scores, CUDA_R_32F, static_cast<int>(S), S * S, pairs, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT),
        "the Q K^T GEMM");

    int64_t const rows = B * N * S;
    float const scale = 1.F / sqrtf(static_cast<float>(H));
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, 65535 * 16));
    if (problem.half)
    {
        maskedSoftmaxKernel<<<blocks, 128, 0, stream>>>(
            scores, static_cast<__half*>(probs), problem.maskIndex, rows, S, N, scale);
    }
    else
    {
        maskedSoftmaxKernel<<<blocks, 128, 0, stream>>>(
            scores, static_cast<float*>(probs), problem.maskIndex, rows, S, N, scale);
    }
    cudaError_t const launched = cudaGetLastError();
    if (launched != cudaSuccess)
    {
        throw PluginError(std::string(plugin) + ": the softmax kernel failed: " + cudaGetErrorString(launched));
    }

    // context[q][b][n][:] = sum_k probs[b n][q][k] V_k: column-major C (H x S, stride B E between tokens) = V P.
    checkCublas(plugin,
        cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(H), static_cast<int>(S),
            static_cast<int>(S), &one, base + 2 * H * elementBytes, type, tokenStride, headStride, probs, type,
            static_cast<int>(S), S * S, &zero, output, type, static_cast<int>(B * N * H), H, pairs, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT),
        "the probabilities-times-V GEMM");
}

} // namespace kiln::plugins
