#include "disentangled_attention_kernels.h"

#include "relative_index.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One thread per output element (grid-stride); consecutive threads take consecutive keys k, so c2c and the output
// are read and written coalesced, while the two gathers read along a row (c2p) or a column (p2c).
template <typename T>
__global__ void disentangledKernel(T const* c2c, T const* c2p, T const* p2c, T* result, int64_t total, int64_t sequence,
    int32_t width, int32_t span, float factor)
{
    for (int64_t index = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; index < total;
         index += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const k = index % sequence;
        int64_t const q = (index / sequence) % sequence;
        int64_t const i = index / (sequence * sequence);
        int32_t const column = relativeColumn(static_cast<int32_t>(q - k), span, width);
        float const sum = static_cast<float>(c2c[index]) + static_cast<float>(c2p[(i * sequence + q) * width + column])
            + static_cast<float>(p2c[(i * sequence + k) * width + column]);
        result[index] = static_cast<T>(sum * factor);
    }
}

} // namespace

cudaError_t launchDisentangledAttention(void const* c2c, void const* c2p, void const* p2c, void* result, bool half,
    int64_t count, int64_t sequence, int32_t width, int32_t span, float factor, cudaStream_t stream)
{
    int64_t const total = count * sequence * sequence;
    if (total == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535 * 8));
    if (half)
    {
        disentangledKernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half const*>(c2c),
            static_cast<__half const*>(c2p), static_cast<__half const*>(p2c), static_cast<__half*>(result), total,
            sequence, width, span, factor);
    }
    else
    {
        disentangledKernel<<<blocks, kThreads, 0, stream>>>(static_cast<float const*>(c2c),
            static_cast<float const*>(c2p), static_cast<float const*>(p2c), static_cast<float*>(result), total,
            sequence, width, span, factor);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
