// CUDA kernel of ScaledAddPlugin (compiled only when Kiln is built with CUDA).
#include "SeedCudaCommon.cuh"
#include "SeedKernels.h"

namespace kiln_seed
{
namespace cuda
{

namespace
{
template <typename T>
__global__ void scaledAddKernel(T const* a, T const* b, T* y, float alpha, int64_t count)
{
    int64_t const stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    {
        // Multiply and add kept separate (no FMA) so results match the CPU backend bit for bit.
        float const scaled = __fmul_rn(alpha, loadAsFloat(b, i));
        storeFromFloat(y, i, __fadd_rn(loadAsFloat(a, i), scaled));
    }
}
} // namespace

int32_t launchScaledAdd(
    void const* a, void const* b, void* y, bool isHalf, float alpha, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return 0;
    }
    unsigned int const blocks = blocksFor(count);
    if (isHalf)
    {
        scaledAddKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<__half const*>(a), static_cast<__half const*>(b), static_cast<__half*>(y), alpha, count);
    }
    else
    {
        scaledAddKernel<<<blocks, kTHREADS_PER_BLOCK, 0, stream>>>(
            static_cast<float const*>(a), static_cast<float const*>(b), static_cast<float*>(y), alpha, count);
    }
    return launchStatus();
}

} // namespace cuda
} // namespace kiln_seed
