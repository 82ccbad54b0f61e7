#include "gelu_kernels.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

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

int32_t constexpr kVector = 4; // elements per thread and step: one 16-byte (FP32) or 8-byte (FP16) access

//! kVector consecutive elements, loaded and stored as one access.
template <typename T>
struct alignas(sizeof(T) * kVector) Pack
{
    T values[kVector];
};

// One pack of kVector elements per thread and step. The bias index is tracked per pack (biasCount is a multiple
// of kVector here), so the 64-bit modulo is paid once per four elements, and loads and stores are vectorized:
// the kernel runs at memory speed.
template <typename T>
__global__ void geluPackedKernel(Pack<T> const* x, Pack<T>* y, float const* bias, int64_t biasPacks, int64_t packs)
{
    for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < packs;
         p += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        Pack<T> const in = x[p];
        Pack<T> out;
        float4 const shift = bias != nullptr ? reinterpret_cast<float4 const*>(bias)[p % biasPacks]
                                             : make_float4(0.F, 0.F, 0.F, 0.F);
        float const shifts[kVector] = {shift.x, shift.y, shift.z, shift.w};
        for (int32_t k = 0; k < kVector; ++k)
        {
            out.values[k] = static_cast<T>(gelu(static_cast<float>(in.values[k]) + shifts[k]));
        }
        y[p] = out;
    }
}

// Any count and bias length, one element per thread and step.
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

template <typename T>
cudaError_t launchTyped(
    void const* x, void* y, float const* bias, int64_t biasCount, int64_t count, cudaStream_t stream)
{
    int constexpr kThreads = 256;
    auto const aligned = [](void const* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; };
    bool const packed = count % kVector == 0 && (bias == nullptr || biasCount % kVector == 0)
        && aligned(x, sizeof(Pack<T>)) && aligned(y, sizeof(Pack<T>)) && aligned(bias, sizeof(float4));
    int64_t const items = packed ? count / kVector : count;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((items + kThreads - 1) / kThreads, 65535 * 8));
    if (packed)
    {
        geluPackedKernel<<<blocks, kThreads, 0, stream>>>(static_cast<Pack<T> const*>(x), static_cast<Pack<T>*>(y),
            bias, bias != nullptr ? biasCount / kVector : 1, items);
    }
    else
    {
        geluKernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<T const*>(x), static_cast<T*>(y), bias, biasCount, count);
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t launchGelu(
    void const* x, void* y, bool half, float const* bias, int64_t biasCount, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return cudaSuccess;
    }
    return half ? launchTyped<__half>(x, y, bias, biasCount, count, stream)
                : launchTyped<float>(x, y, bias, biasCount, count, stream);
}

} // namespace kiln::plugins
