#include "int8_affine_kernel.h"
#include "int8_affine_math.h"

#include <cuda_runtime_api.h>

#include <algorithm>

namespace kiln_int8_test
{
namespace
{

constexpr int kThreads = 256;

//! A thread per element (o, c, s), wherever the layout puts it.
__global__ void int8AffineKernel(int8_t const* x, int8_t* y, kiln::VectorLayout layout, float inScale, float outScale,
    float const* weight, float const* bias)
{
    int64_t const count = layout.outer * layout.channels * layout.inner;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t const s = i % layout.inner;
        int64_t const c = i / layout.inner % layout.channels;
        int64_t const o = i / (layout.inner * layout.channels);
        int64_t const at = elementOffset(layout, o, c, s);
        y[at] = affineQuantized(x[at], inScale, weight[c], bias[c], outScale);
    }
}

} // namespace

int32_t launchInt8Affine(int8_t const* x, int8_t* y, kiln::VectorLayout layout, float inScale, float outScale,
    float const* weight, float const* bias, cudaStream_t stream)
{
    int64_t const count = layout.outer * layout.channels * layout.inner;
    if (count == 0)
    {
        return 0;
    }
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535));
    int8AffineKernel<<<blocks, kThreads, 0, stream>>>(x, y, layout, inScale, outScale, weight, bias);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int32_t uploadAffine(
    std::vector<float> const& weight, std::vector<float> const& bias, float** weightOut, float** biasOut)
{
    size_t const bytes = weight.size() * sizeof(float);
    *weightOut = nullptr;
    *biasOut = nullptr;
    if (cudaMalloc(reinterpret_cast<void**>(weightOut), bytes) != cudaSuccess
        || cudaMalloc(reinterpret_cast<void**>(biasOut), bytes) != cudaSuccess
        || cudaMemcpy(*weightOut, weight.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess
        || cudaMemcpy(*biasOut, bias.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    {
        releaseAffine(*weightOut, *biasOut);
        *weightOut = nullptr;
        *biasOut = nullptr;
        return 1;
    }
    return 0;
}

void releaseAffine(float* weight, float* bias)
{
    cudaFree(weight); // null is fine
    cudaFree(bias);
}

} // namespace kiln_int8_test
