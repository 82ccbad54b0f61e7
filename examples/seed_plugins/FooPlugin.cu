// CUDA kernel of FooPlugin (compiled only when Kiln is built with CUDA).
#include "SeedCudaCommon.cuh"
#include "SeedKernels.h"

namespace kiln_seed
{
namespace cuda
{

namespace
{
template <typename T>
__global__ void leakyReluKernel(T const* x, T* y, float alpha, int64_t count)
{
    int64_t const stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    {
        float const v = loadAsFloat(x, i);
        storeFromFloat(y, i, v >= 0.0f ? v : alpha * v);
    }
}
} // namespace

int32_t launchLeakyRelu(void const* x, void* y, bool isHalf, float alpha, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return 0;
    }
    unsigned int const blocks = blocksFor(count);
    if (isHalf)
    {
        leakyReluKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<__half const*>(x), static_cast<__half*>(y), alpha, count);
    }
    else
    {
        leakyReluKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<float const*>(x), static_cast<float*>(y), alpha, count);
    }
    return launchStatus();
}

} // namespace cuda
} // namespace kiln_seed
