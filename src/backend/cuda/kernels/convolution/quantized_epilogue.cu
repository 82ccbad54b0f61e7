#include "backend/cuda/kernels/convolution/quantized_epilogue.cuh"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/fp8_pairs.cuh"

#include <algorithm>
#include <cstdint>
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

//! Channels-last, one output element per thread.
template <typename Sum>
__global__ void epilogueChannelsLastKernel(Sum const* sums, void* output, QuantizedEpilogue e, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t const position = i / e.maps;
        int64_t const map = i - position * e.maps;
        finishValue(e, sums[position * e.sumsStride + map], output, i, map);
    }
}

//! Output elements i .. i + 3 of `e`'s output (i a multiple of 4, the output aligned to four of its elements) as one
//! vector, from y: FP8 codes by pairs on the conversion instruction where the GPU has one, INT8 codes four at a time,
//! each the code finishValue writes (fp8_pairs.cuh, int8_vectors.cuh).
__device__ inline void storeFour(QuantizedEpilogue const& e, void* output, int64_t i, float const (&y)[4])
{
    if (e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kFP8)
    {
        *reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(output) + i) = quantizeTwoToFp8(y[0], y[1], e.outputScale)
            | quantizeTwoToFp8(y[2], y[3], e.outputScale) << 16;
    }
    else if (e.outputScale > 0.0F)
    {
        *reinterpret_cast<uint32_t*>(static_cast<int8_t*>(output) + i)
            = quantizeFourToInt8(y, e.outputScale, 1.0F / e.outputScale);
    }
    else if (e.floatType == nvinfer1::DataType::kHALF)
    {
        auto const pair = [](float a, float b) {
            return __half_as_ushort(__float2half_rn(a))
                | static_cast<uint32_t>(__half_as_ushort(__float2half_rn(b))) << 16;
        };
        *reinterpret_cast<uint2*>(static_cast<__half*>(output) + i) = uint2{pair(y[0], y[1]), pair(y[2], y[3])};
    }
    else
    {
        *reinterpret_cast<float4*>(static_cast<float*>(output) + i) = float4{y[0], y[1], y[2], y[3]};
    }
}

//! Channels-last, four adjacent maps of one output position per thread (maps a multiple of 4), computed as
//! epilogueValue computes each value, their multipliers and biases read and their outputs written as vectors; `e`'s
//! activation is one of `Activations`.
template <EpilogueActivations Activations, typename Sum>
__global__ void epilogueFourMapsKernel(Sum const* sums, void* output, QuantizedEpilogue e, int64_t count)
{
    for (int64_t i = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * 4; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x * 4)
    {
        int64_t const position = i / e.maps;
        int64_t const map = i - position * e.maps;
        Sum values[4];
        loadSums<4, Sum>(sums + position * e.sumsStride + map, values);
        float4 const multipliers = *reinterpret_cast<float4 const*>(e.multipliers + map);
        float y[4] = {static_cast<float>(values[0]) * multipliers.x, static_cast<float>(values[1]) * multipliers.y,
            static_cast<float>(values[2]) * multipliers.z, static_cast<float>(values[3]) * multipliers.w};
        if (e.bias != nullptr)
        {
            float4 const bias = *reinterpret_cast<float4 const*>(e.bias + map);
            y[0] += bias.x;
            y[1] += bias.y;
            y[2] += bias.z;
            y[3] += bias.w;
        }
        if (e.residual != nullptr)
        {
#pragma unroll
            for (int j = 0; j < 4; ++j)
            {
                y[j] += residualValue(e, i + j);
            }
        }
        activateValues<Activations>(e, y);
        storeFour(e, output, i, y);
    }
}

unsigned blocksFor(int64_t threads)
{
    return device::blocksFor(threads);
}

//! The bytes of one element of `e`'s output.
size_t outputElementBytes(QuantizedEpilogue const& e)
{
    return e.outputScale > 0.0F ? 1 : e.floatType == nvinfer1::DataType::kHALF ? 2 : 4;
}

template <typename Sum>
void launchChannelsLast(Sum const* sums, void* output, QuantizedEpilogue const& e, int64_t images, cudaStream_t stream)
{
    int64_t const count = images * e.positions * e.maps;
    bool const vectors = e.maps % 4 == 0 && reinterpret_cast<uintptr_t>(output) % (4 * outputElementBytes(e)) == 0;
    if (!vectors)
    {
        epilogueChannelsLastKernel<Sum>
            <<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
    }
    else
    {
        unsigned const blocks = blocksFor(count / 4);
        switch (activationsOf(e))
        {
        case EpilogueActivations::kReluAtMost:
            epilogueFourMapsKernel<EpilogueActivations::kReluAtMost, Sum>
                <<<blocks, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
            break;
        case EpilogueActivations::kSelfGated:
            epilogueFourMapsKernel<EpilogueActivations::kSelfGated, Sum>
                <<<blocks, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
            break;
        case EpilogueActivations::kAny:
            epilogueFourMapsKernel<EpilogueActivations::kAny, Sum>
                <<<blocks, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
            break;
        }
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
