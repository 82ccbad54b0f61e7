#include "scatter_nd_kernels.h"

#include "common/grid_size.h"

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

// The gather path (gather, below): slots[o] names the update tuple that writes output slice o, or -1 where
// data's slice stays. A slice of data is `sliceSize` elements, so output slice o starts at element o * sliceSize.
__global__ void clearSlotsKernel(int32_t* slots, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        slots[i] = -1;
    }
}

// Of several tuples naming one slice, the last one wins, as in the host kernel's loop (ONNX leaves it undefined).
template <typename Index>
__global__ void claimSlotsKernel(scatter_nd::Geometry g, Index const* indices, int32_t* slots)
{
    for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < g.sliceCount;
         t += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int32_t badAxis = 0;
        int64_t const offset = scatter_nd::sliceOffset(g, indices, t, &badAxis);
        if (offset >= 0)
        {
            atomicMax(&slots[offset / g.sliceSize], static_cast<int32_t>(t));
        }
    }
}

// The output as 16-byte words, each copied from the update that claimed its slice or from data: every byte of the
// output is written once, and only the bytes it takes are read. A thread copies kWordsInFlight words at a time,
// all loaded before any is stored, so that enough bytes are in flight to keep memory busy.
int32_t constexpr kWordsInFlight = 4;
// Slices of fewer bytes would divide once per few bytes copied: those take the copy and scatter kernels.
int64_t constexpr kMinGatherSliceBytes = 128;

__global__ void __launch_bounds__(kGridThreads)
    gatherSlicesKernel(uint4 const* __restrict__ data, uint4 const* __restrict__ updates,
        int32_t const* __restrict__ slots, uint4* __restrict__ output, uint32_t words, uint32_t wordsPerSlice)
{
    uint32_t const stride = gridDim.x * blockDim.x;
    for (uint32_t first = blockIdx.x * blockDim.x + threadIdx.x; first < words; first += stride * kWordsInFlight)
    {
        uint4 copied[kWordsInFlight];
#pragma unroll
        for (int i = 0; i < kWordsInFlight; ++i)
        {
            uint32_t const w = first + i * stride;
            if (w < words)
            {
                uint32_t const slice = w / wordsPerSlice;
                int32_t const tuple = slots[slice];
                copied[i] = tuple >= 0
                    ? updates[static_cast<uint64_t>(tuple) * wordsPerSlice + (w - slice * wordsPerSlice)]
                    : data[w];
            }
        }
#pragma unroll
        for (int i = 0; i < kWordsInFlight; ++i)
        {
            uint32_t const w = first + i * stride;
            if (w < words)
            {
                output[w] = copied[i];
            }
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

template <typename Index>
cudaError_t gather(scatter_nd::Geometry const& g, int64_t dataCount, size_t elementSize, void const* data,
    Index const* indices, void const* updates, void* output, int32_t* slots, cudaStream_t stream)
{
    int64_t const slices = dataCount / g.sliceSize;
    int64_t const wordsPerSlice = g.sliceSize * static_cast<int64_t>(elementSize) / 16;
    clearSlotsKernel<<<gridBlocks(slices), kGridThreads, 0, stream>>>(slots, slices);
    if (g.sliceCount > 0)
    {
        claimSlotsKernel<<<gridBlocks(g.sliceCount), kGridThreads, 0, stream>>>(g, indices, slots);
    }
    int64_t const words = slices * wordsPerSlice;
    auto const blocks = static_cast<unsigned>(std::clamp<int64_t>(
        (words + kGridThreads * kWordsInFlight - 1) / (kGridThreads * kWordsInFlight), 1, 65535 * 8));
    gatherSlicesKernel<<<blocks, kGridThreads, 0, stream>>>(static_cast<uint4 const*>(data),
        static_cast<uint4 const*>(updates), slots, static_cast<uint4*>(output), static_cast<uint32_t>(words),
        static_cast<uint32_t>(wordsPerSlice));
    return cudaGetLastError();
}

// Whether the gather path takes this scatter: a new output, slices of whole 16-byte vectors, aligned tensors.
bool gatherFits(scatter_nd::Geometry const& g, int64_t dataCount, size_t elementSize, void const* data,
    void const* updates, void* output, int32_t const* slots)
{
    auto const aligned = [](void const* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    int64_t const sliceBytes = g.sliceSize * static_cast<int64_t>(elementSize);
    return slots != nullptr && output != data && g.sliceSize > 0 && sliceBytes % 16 == 0
        && sliceBytes >= kMinGatherSliceBytes && aligned(data) && aligned(updates) && aligned(output)
        && g.sliceCount < (int64_t{1} << 31) && dataCount % g.sliceSize == 0
        && dataCount * static_cast<int64_t>(elementSize) / 16 < (int64_t{1} << 31); // words counted in 32 bits
}

} // namespace

cudaError_t launchScatterNd(scatter_nd::Geometry const& geometry, int64_t dataCount, size_t elementSize,
    void const* data, void const* indices, bool wideIndices, void const* updates, void* output, int32_t* slots,
    cudaStream_t stream)
{
    if (gatherFits(geometry, dataCount, elementSize, data, updates, output, slots))
    {
        return wideIndices ? gather(geometry, dataCount, elementSize, data, static_cast<int64_t const*>(indices),
                   updates, output, slots, stream)
                           : gather(geometry, dataCount, elementSize, data, static_cast<int32_t const*>(indices),
                               updates, output, slots, stream);
    }
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
