// CUDA kernel of MyCustomPlugin (compiled only when Kiln is built with CUDA).
#include "SeedCudaCommon.cuh"
#include "SeedKernels.h"

namespace kiln_seed
{
namespace cuda
{

namespace
{
template <typename T>
__global__ void channelAffineKernel(
    T const* x, T* y, float const* weight, float const* bias, int64_t total, int64_t channels, int64_t inner)
{
    int64_t const stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    {
        int64_t const c = (i / inner) % channels;
        // Separate multiply and add (no FMA), matching enqueueHost bit for bit.
        storeFromFloat(y, i, __fadd_rn(__fmul_rn(loadAsFloat(x, i), weight[c]), bias[c]));
    }
}
} // namespace

int32_t launchChannelAffine(void const* x, void* y, bool isHalf, float const* weight, float const* bias, int64_t outer,
    int64_t channels, int64_t inner, cudaStream_t stream)
{
    int64_t const total = outer * channels * inner;
    if (total == 0)
    {
        return 0;
    }
    if (inner == 0 || channels == 0)
    {
        return 1;
    }
    unsigned int const blocks = blocksFor(total);
    if (isHalf)
    {
        channelAffineKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<__half const*>(x), static_cast<__half*>(y), weight, bias, total, channels, inner);
    }
    else
    {
        channelAffineKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<float const*>(x), static_cast<float*>(y), weight, bias, total, channels, inner);
    }
    return launchStatus();
}

int32_t uploadFloats(float const* host, size_t count, float** device)
{
    *device = nullptr;
    if (count == 0)
    {
        return 0;
    }
    void* memory = nullptr;
    if (cudaMalloc(&memory, count * sizeof(float)) != cudaSuccess)
    {
        return 1;
    }
    if (cudaMemcpy(memory, host, count * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
    {
        cudaFree(memory);
        return 1;
    }
    *device = static_cast<float*>(memory);
    return 0;
}

void freeDevice(void* device)
{
    if (device != nullptr)
    {
        cudaFree(device);
    }
}

} // namespace cuda
} // namespace kiln_seed
