#include "gelu_kernels.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{
namespace
{

// GELU's tanh form, as NVIDIA's BERT plugins compute it: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
__device__ float gelu(float x)
{
    float const inner = 0.7978845608028654F * (x + 0.044715F * x * x * x);
    return 0.5F * x * (1.0F + tanhf(inner));
}

template <typename T>
__global__ void geluKernel(T const* x, T* y, float const* bias, int64_t biasCount, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        float value = static_cast<float>(x[i]);
        if (bias != nullptr)
        {
            value += bias[i % biasCount];
        }
        y[i] = static_cast<T>(gelu(value));
    }
}

} // namespace

cudaError_t launchGelu(
    void const* x, void* y, bool half, float const* bias, int64_t biasCount, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    if (half)
    {
        geluKernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<__half const*>(x), static_cast<__half*>(y), bias, biasCount, count);
    }
    else
    {
        geluKernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<float const*>(x), static_cast<float*>(y), bias, biasCount, count);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
