#include "scatter_nd_kernels.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One thread per update element: the elements of one slice are contiguous in both updates and output.
template <typename Element, typename Index>
__global__ void scatterNdKernel(
    scatter_nd::Geometry g, Index const* indices, Element const* updates, Element* output, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int32_t badAxis = 0;
        int64_t const offset = scatter_nd::sliceOffset(g, indices, i / g.sliceSize, &badAxis);
        if (offset >= 0)
        {
            output[offset + i % g.sliceSize] = updates[i];
        }
    }
}

template <typename Element>
void launchTyped(scatter_nd::Geometry const& g, void const* indices, bool wideIndices, void const* updates,
    void* output, int64_t count, cudaStream_t stream)
{
    int32_t constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    auto const* from = static_cast<Element const*>(updates);
    auto* to = static_cast<Element*>(output);
    if (wideIndices)
    {
        scatterNdKernel<<<blocks, kThreads, 0, stream>>>(g, static_cast<int64_t const*>(indices), from, to, count);
    }
    else
    {
        scatterNdKernel<<<blocks, kThreads, 0, stream>>>(g, static_cast<int32_t const*>(indices), from, to, count);
    }
}

} // namespace

cudaError_t launchScatterNd(scatter_nd::Geometry const& geometry, int64_t dataCount, size_t elementSize,
    void const* data, void const* indices, bool wideIndices, void const* updates, void* output, cudaStream_t stream)
{
    if (output != data)
    {
        cudaError_t const copied
            = cudaMemcpyAsync(output, data, dataCount * elementSize, cudaMemcpyDeviceToDevice, stream);
        if (copied != cudaSuccess)
        {
            return copied;
        }
    }
    int64_t const count = geometry.sliceCount * geometry.sliceSize;
    if (count == 0)
    {
        return cudaSuccess;
    }
    switch (elementSize)
    {
    case 1: launchTyped<uint8_t>(geometry, indices, wideIndices, updates, output, count, stream); break;
    case 2: launchTyped<uint16_t>(geometry, indices, wideIndices, updates, output, count, stream); break;
    case 4: launchTyped<uint32_t>(geometry, indices, wideIndices, updates, output, count, stream); break;
    case 8: launchTyped<uint64_t>(geometry, indices, wideIndices, updates, output, count, stream); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
