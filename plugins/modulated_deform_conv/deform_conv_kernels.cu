#include "deform_conv_kernels.h"

#include "deform_conv_math.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

int32_t constexpr kThreads = 256;

unsigned blocksFor(int64_t count)
{
    return static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, int64_t{1} << 20));
}

template <typename T>
__global__ void columnsKernel(DeformConvShape shape, T const* x, T const* offset, T const* mask, int64_t firstImage,
    int64_t images, float* columns)
{
    int64_t const plane = shape.outH * shape.outW;
    int64_t const taps = shape.kernelH * shape.kernelW;
    int64_t const perImage = shape.inChannels * taps * plane;
    int64_t const count = images * perImage;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const row = i % perImage / plane;
        columns[i] = deformColumn(shape, x, offset, mask, firstImage + i / perImage, row / taps, row % taps, i % plane);
    }
}

__global__ void halfToFloatKernel(__half const* half, float* values, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        values[i] = __half2float(half[i]);
    }
}

template <typename T>
__global__ void epilogueKernel(DeformConvShape shape, int64_t images, float const* product, T const* bias, T* output)
{
    int64_t const plane = shape.outH * shape.outW;
    int64_t const count = images * shape.outChannels * plane;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        float const shift = bias != nullptr ? static_cast<float>(bias[i / plane % shape.outChannels]) : 0.F;
        output[i] = static_cast<T>(product[i] + shift);
    }
}

} // namespace

cudaError_t launchDeformColumns(DeformConvShape const& shape, bool half, void const* x, void const* offset,
    void const* mask, int64_t firstImage, int64_t images, float* columns, cudaStream_t stream)
{
    int64_t const count = images * shape.inChannels * shape.kernelH * shape.kernelW * shape.outH * shape.outW;
    if (count == 0)
    {
        return cudaSuccess;
    }
    if (half)
    {
        columnsKernel<<<blocksFor(count), kThreads, 0, stream>>>(shape, static_cast<__half const*>(x),
            static_cast<__half const*>(offset), static_cast<__half const*>(mask), firstImage, images, columns);
    }
    else
    {
        columnsKernel<<<blocksFor(count), kThreads, 0, stream>>>(shape, static_cast<float const*>(x),
            static_cast<float const*>(offset), static_cast<float const*>(mask), firstImage, images, columns);
    }
    return cudaGetLastError();
}

cudaError_t launchHalfToFloat(void const* half, float* values, int64_t count, cudaStream_t stream)
{
    if (count == 0)
    {
        return cudaSuccess;
    }
    halfToFloatKernel<<<blocksFor(count), kThreads, 0, stream>>>(static_cast<__half const*>(half), values, count);
    return cudaGetLastError();
}

cudaError_t launchDeformEpilogue(DeformConvShape const& shape, int64_t images, bool half, float const* product,
    void const* bias, void* output, cudaStream_t stream)
{
    int64_t const count = images * shape.outChannels * shape.outH * shape.outW;
    if (count == 0)
    {
        return cudaSuccess;
    }
    if (half)
    {
        epilogueKernel<<<blocksFor(count), kThreads, 0, stream>>>(
            shape, images, product, static_cast<__half const*>(bias), static_cast<__half*>(output));
    }
    else
    {
        epilogueKernel<<<blocksFor(count), kThreads, 0, stream>>>(
            shape, images, product, static_cast<float const*>(bias), static_cast<float*>(output));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
