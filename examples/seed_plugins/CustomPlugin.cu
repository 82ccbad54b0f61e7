// CUDA kernel of CustomPlugin (compiled only when Kiln is built with CUDA).
#include "SeedCudaCommon.cuh"
#include "SeedKernels.h"

namespace kiln_seed
{
namespace cuda
{

namespace
{
__global__ void clampKernel(float const* x, float* y, float lo, float hi, int64_t count)
{
    int64_t const stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    {
        y[i] = fminf(fmaxf(x[i], lo), hi);
    }
}
} // namespace

int32_t launchClamp(float const* x, float* y, float lo, float hi, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return 0;
    }
    clampKernel<<<blocksFor(count), kTHREADS_PER_BLOCK, 0, stream>>>(x, y, lo, hi, count);
    return launchStatus();
}

} // namespace cuda
} // namespace kiln_seed
