#include "backend/cuda/kernels/convolution/quantized_epilogue.cuh"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"

#include <algorithm>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

//! `Width` sums from `sums`, in one 16-byte load where Width is 4 (the caller aligns them).
template <int Width, typename Sum>
__device__ void loadSums(Sum const* sums, Sum (&values)[Width])
{
    if constexpr (Width == 4)
    {
        using Vector = std::conditional_t<std::is_same_v<Sum, float>, float4, int4>;
        Vector const loaded = *reinterpret_cast<Vector const*>(sums);
        values[0] = loaded.x;
        values[1] = loaded.y;
        values[2] = loaded.z;
        values[3] = loaded.w;
    }
    else
    {
        values[0] = sums[0];
    }
}

//! Channels-first. blockIdx.y (and further planes in steps of gridDim.y): one output plane, image * maps + map; the
//! threads run along its positions, `Width` adjacent ones each. The sums of map k lie in a column of their own, so
//! neighbouring threads read neighbouring sums and write neighbouring outputs.
template <int Width>
__global__ void epilogueChannelsFirstKernel(int32_t const* sums, void* output, QuantizedEpilogue e, int64_t planes)
{
    for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y)
    {
        int64_t const image = plane / e.maps;
        int64_t const map = plane - image * e.maps;
        int32_t const* const planeSums = sums + map * e.sumsStride + image * e.positions;
        for (int64_t p = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Width; p < e.positions;
             p += static_cast<int64_t>(gridDim.x) * blockDim.x * Width)
        {
            int32_t values[Width];
            loadSums<Width, int32_t>(planeSums + p, values);
            for (int j = 0; j < Width; ++j)
            {
                int64_t const i = plane * e.positions + p + j;
                finishValue(e, values[j], output, i, map);
            }
        }
    }
}

//! Channels-last: `Width` adjacent maps of one output position per thread, in the output's order.
template <int Width, typename Sum>
__global__ void epilogueChannelsLastKernel(Sum const* sums, void* output, QuantizedEpilogue e, int64_t count)
{
    for (int64_t i = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * Width; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x * Width)
    {
        int64_t const position = i / e.maps;
        int64_t const map = i - position * e.maps;
        Sum values[Width];
        loadSums<Width, Sum>(sums + position * e.sumsStride + map, values);
        for (int j = 0; j < Width; ++j)
        {
            finishValue(e, values[j], output, i + j, map + j);
        }
    }
}

unsigned blocksFor(int64_t threads)
{
    return device::blocksFor(threads);
}

template <typename Sum>
void launchChannelsLast(Sum const* sums, void* output, QuantizedEpilogue const& e, int64_t images, cudaStream_t stream)
{
    int64_t const count = images * e.positions * e.maps;
    if (e.maps % 4 == 0)
    {
        epilogueChannelsLastKernel<4, Sum>
            <<<blocksFor(count / 4), device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
    }
    else
    {
        epilogueChannelsLastKernel<1, Sum>
            <<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
    }
    check(cudaGetLastError(), "quantized layer: scaling its sums");
}

} // namespace

void launchQuantizedEpilogue(
    float const* sums, void* output, QuantizedEpilogue const& e, int64_t images, cudaStream_t stream)
{
    launchChannelsLast(sums, output, e, images, stream);
}

void launchQuantizedEpilogue(int32_t const* sums, void* output, QuantizedEpilogue const& e, int64_t images,
    bool channelsLast, cudaStream_t stream)
{
    if (channelsLast)
    {
        launchChannelsLast(sums, output, e, images, stream);
        return;
    }
    int64_t const planes = images * e.maps;
    bool const vectors = e.positions % 4 == 0;
    int64_t const perPlane = vectors ? e.positions / 4 : e.positions;
    dim3 const grid(static_cast<unsigned>(
                        std::min<int64_t>((perPlane + device::kThreadsPerBlock - 1) / device::kThreadsPerBlock, 64)),
        static_cast<unsigned>(std::min<int64_t>(planes, 65535)));
    if (vectors)
    {
        epilogueChannelsFirstKernel<4><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    else
    {
        epilogueChannelsFirstKernel<1><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    check(cudaGetLastError(), "quantized layer: scaling its INT8 sums");
}

} // namespace kiln::cuda
