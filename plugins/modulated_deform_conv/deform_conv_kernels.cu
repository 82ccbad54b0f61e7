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

//! Each block row y takes rows y, y + gridDim.y, ... of the images' columns matrices one after the other (a channel
//! and tap of an image), its threads the row's output positions: the division of the index into image, channel and
//! tap is done once per row, not per element.
template <typename T>
__global__ void columnsKernel(
    DeformConvShape shape, T const* x, T const* offset, T const* mask, int64_t firstImage, int64_t images, T* columns)
{
    int64_t const plane = shape.outH * shape.outW;
    int64_t const taps = shape.kernelH * shape.kernelW;
    int64_t const rows = shape.inChannels * taps;
    for (int64_t imageRow = blockIdx.y; imageRow < images * rows; imageRow += gridDim.y)
    {
        int64_t const image = firstImage + imageRow / rows;
        int64_t const channel = imageRow % rows / taps;
        int64_t const tap = imageRow % taps;
        T* row = columns + imageRow * plane;
        for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < plane;
             p += static_cast<int64_t>(gridDim.x) * blockDim.x)
        {
            row[p] = static_cast<T>(deformColumn(shape, x, offset, mask, image, channel, tap, p));
        }
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
    void const* mask, int64_t firstImage, int64_t images, void* columns, cudaStream_t stream)
{
    int64_t const rows = images * shape.inChannels * shape.kernelH * shape.kernelW;
    int64_t const plane = shape.outH * shape.outW;
    if (rows == 0 || plane == 0)
    {
        return cudaSuccess;
    }
    dim3 const grid(blocksFor(plane), static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
    if (half)
    {
        columnsKernel<<<grid, kThreads, 0, stream>>>(shape, static_cast<__half const*>(x),
            static_cast<__half const*>(offset), static_cast<__half const*>(mask), firstImage, images,
            static_cast<__half*>(columns));
    }
    else
    {
        columnsKernel<<<grid, kThreads, 0, stream>>>(shape, static_cast<float const*>(x),
            static_cast<float const*>(offset), static_cast<float const*>(mask), firstImage, images,
            static_cast<float*>(columns));
    }
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
