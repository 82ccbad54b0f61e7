#include "scatter_elements_kernels.h"

#include "device_common/element_size.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace kiln::plugins
{
namespace
{

using scatter_elements::Reduction;

// How each element type is stored and what it computes in (scatter_elements_math.h's combine overloads).
struct FloatCodec
{
    using Storage = float;
    __device__ static float load(float v)
    {
        return v;
    }
    __device__ static float store(float v)
    {
        return v;
    }
};
struct HalfCodec
{
    using Storage = unsigned short;
    __device__ static float load(unsigned short v)
    {
        return __half2float(__ushort_as_half(v));
    }
    __device__ static unsigned short store(float v)
    {
        return __half_as_ushort(__float2half_rn(v));
    }
};
struct Bf16Codec
{
    using Storage = unsigned short;
    __device__ static float load(unsigned short v)
    {
        return __bfloat162float(__ushort_as_bfloat16(v));
    }
    __device__ static unsigned short store(float v)
    {
        return __bfloat16_as_ushort(__float2bfloat16_rn(v));
    }
};
struct Int32Codec
{
    using Storage = int32_t;
    __device__ static int64_t load(int32_t v)
    {
        return v;
    }
    __device__ static int32_t store(int64_t v)
    {
        return static_cast<int32_t>(v);
    }
};
struct Int64Codec
{
    using Storage = int64_t;
    __device__ static int64_t load(int64_t v)
    {
        return v;
    }
    __device__ static int64_t store(int64_t v)
    {
        return v;
    }
};

// The unsigned word atomicCAS takes for an element of `bytes` bytes (16-bit CAS needs sm_70 or later).
template <int bytes>
struct CasWord;
template <>
struct CasWord<2>
{
    using Type = unsigned short;
};
template <>
struct CasWord<4>
{
    using Type = unsigned int;
};
template <>
struct CasWord<8>
{
    using Type = unsigned long long;
};

// element = combine(element, update), atomically: a compare-and-swap loop on the element's bits.
template <typename Codec>
__device__ void atomicCombine(typename Codec::Storage* element, Reduction reduction, typename Codec::Storage update)
{
    using Storage = typename Codec::Storage;
    using Word = typename CasWord<sizeof(Storage)>::Type;
    auto* word = reinterpret_cast<Word*>(element);
    Word seen = *reinterpret_cast<Word volatile*>(word);
    Word expected;
    do
    {
        expected = seen;
        Storage current;
        memcpy(&current, &expected, sizeof(Storage));
        Storage const next
            = Codec::store(scatter_elements::combine(reduction, Codec::load(current), Codec::load(update)));
        Word desired;
        memcpy(&desired, &next, sizeof(Storage));
        seen = atomicCAS(word, expected, desired);
    } while (seen != expected);
}

template <typename Codec, typename Index>
__global__ void scatterElementsKernel(scatter_elements::Geometry g, Reduction reduction, Index const* indices,
    typename Codec::Storage const* updates, typename Codec::Storage* output, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const offset = scatter_elements::targetOffset(g, i, static_cast<int64_t>(indices[i]));
        if (offset < 0)
        {
            continue;
        }
        if (reduction == Reduction::kNONE)
        {
            output[offset] = updates[i];
            continue;
        }
        if constexpr (std::is_same_v<Codec, FloatCodec>)
        {
            if (reduction == Reduction::kADD)
            {
                atomicAdd(output + offset, updates[i]); // FP32's native atomic add
                continue;
            }
        }
        atomicCombine<Codec>(output + offset, reduction, updates[i]);
    }
}

template <typename Codec>
void launchTyped(scatter_elements::Geometry const& g, Reduction reduction, void const* indices, bool wideIndices,
    void const* updates, void* output, int64_t count, cudaStream_t stream)
{
    using Storage = typename Codec::Storage;
    int32_t constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    auto const* from = static_cast<Storage const*>(updates);
    auto* to = static_cast<Storage*>(output);
    if (wideIndices)
    {
        scatterElementsKernel<Codec>
            <<<blocks, kThreads, 0, stream>>>(g, reduction, static_cast<int64_t const*>(indices), from, to, count);
    }
    else
    {
        scatterElementsKernel<Codec>
            <<<blocks, kThreads, 0, stream>>>(g, reduction, static_cast<int32_t const*>(indices), from, to, count);
    }
}

} // namespace

cudaError_t launchScatterElements(scatter_elements::Geometry const& geometry, Reduction reduction,
    nvinfer1::DataType type, int64_t dataCount, int64_t updateCount, void const* data, void const* indices,
    bool wideIndices, void const* updates, void* output, cudaStream_t stream)
{
    if (output != data)
    {
        cudaError_t const copied = cudaMemcpyAsync(
            output, data, static_cast<size_t>(dataCount) * elementSize(type), cudaMemcpyDeviceToDevice, stream);
        if (copied != cudaSuccess)
        {
            return copied;
        }
    }
    if (updateCount == 0)
    {
        return cudaSuccess;
    }
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT:
        launchTyped<FloatCodec>(geometry, reduction, indices, wideIndices, updates, output, updateCount, stream);
        break;
    case DataType::kHALF:
        launchTyped<HalfCodec>(geometry, reduction, indices, wideIndices, updates, output, updateCount, stream);
        break;
    case DataType::kBF16:
        launchTyped<Bf16Codec>(geometry, reduction, indices, wideIndices, updates, output, updateCount, stream);
        break;
    case DataType::kINT32:
        launchTyped<Int32Codec>(geometry, reduction, indices, wideIndices, updates, output, updateCount, stream);
        break;
    case DataType::kINT64:
        launchTyped<Int64Codec>(geometry, reduction, indices, wideIndices, updates, output, updateCount, stream);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
