#include "skip_layer_norm_kernels.h"

#include "common/block_reduce.cuh"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One block per row (striding over rows when there are more rows than blocks); the row's values are recomputed from
// input, skip and bias in each pass rather than kept in shared memory, so any hidden size works.
template <typename T>
__global__ void skipLayerNormKernel(T const* input, T const* skip, T* output, float const* gamma, float const* beta,
    float const* bias, int64_t rows, int64_t width, float epsilon)
{
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        int64_t const offset = row * width;
        auto valueAt = [&](int64_t i) {
            float const value = static_cast<float>(input[offset + i]) + static_cast<float>(skip[offset + i]);
            return bias != nullptr ? value + bias[i] : value;
        };
        auto store = [&](int64_t i, float y) { output[offset + i] = static_cast<T>(y); };
        layerNormBlockRow(width, valueAt, gamma, beta, epsilon, store);
    }
}

} // namespace

cudaError_t launchSkipLayerNorm(void const* input, void const* skip, void* output, bool half, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, float epsilon, cudaStream_t stream)
{
    if (rows == 0 || width == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, 65535 * 16));
    if (half)
    {
        skipLayerNormKernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half const*>(input),
            static_cast<__half const*>(skip), static_cast<__half*>(output), gamma, beta, bias, rows, width, epsilon);
    }
    else
    {
        skipLayerNormKernel<<<blocks, kThreads, 0, stream>>>(static_cast<float const*>(input),
            static_cast<float const*>(skip), static_cast<float*>(output), gamma, beta, bias, rows, width, epsilon);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
