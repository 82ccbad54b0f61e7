// TopkLastDim on CUDA: the shared radix-select top-k (device_common/radix_top_k.cuh) with the plugin's order keys
// (topk_keys.h, which the host kernel uses too).
#include "topk_kernels.h"

#include "device_common/radix_top_k.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace kiln::plugins
{
namespace
{

namespace topk = kiln::cuda::topk;

__device__ inline uint32_t keyOf(float v)
{
    return floatOrderKey(v);
}
__device__ inline uint32_t keyOf(__half v)
{
    return floatOrderKey(__half2float(v));
}
__device__ inline uint32_t keyOf(__nv_bfloat16 v)
{
    return floatOrderKey(__bfloat162float(v));
}
__device__ inline uint32_t keyOf(int32_t v)
{
    return intOrderKey(v);
}

//! Ascending keys are the output order: largest first inverts them, and the stable sorts keep equal keys in index
//! order either way.
template <typename T>
struct PluginRanker
{
    using Key = uint32_t;
    // FP16 and BF16 widened to float leave the float's low 13 or 16 bits constant (radix_top_k.cuh skips them).
    static constexpr int kLowBit = std::is_same_v<T, __half> ? 13 : std::is_same_v<T, __nv_bfloat16> ? 16 : 0;
    T const* input;
    bool largest;

    __device__ Key operator()(int64_t i) const
    {
        uint32_t const key = keyOf(input[i]);
        return largest ? ~key : key;
    }
};

topk::Rows rowsOf(TopkShape const& shape)
{
    topk::Rows rows;
    rows.count = shape.outer * shape.inner;
    rows.extent = shape.length;
    rows.inner = shape.inner;
    rows.k = shape.k;
    return rows;
}

//! T is the element type, Storage its bits (values are copied, never converted).
template <typename T, typename Storage>
cudaError_t runTopk(
    TopkShape const& shape, void const* input, void* values, int32_t* indices, void* workspace, cudaStream_t stream)
{
    static_assert(sizeof(T) == sizeof(Storage));
    topk::Picks<Storage> picks;
    picks.input = static_cast<Storage const*>(input);
    picks.values = static_cast<Storage*>(values);
    picks.indices = indices;
    picks.wideIndices = false;
    PluginRanker<T> const rank{static_cast<T const*>(input), shape.largest};
    return topk::topKOfRows(rank, rowsOf(shape), picks, workspace, stream);
}

} // namespace

size_t topkWorkspaceSize(TopkShape const& shape)
{
    return topk::workspaceBytes<uint32_t>(rowsOf(shape));
}

cudaError_t launchTopk(TopkShape const& shape, nvinfer1::DataType type, void const* input, void* values,
    int32_t* indices, void* workspace, cudaStream_t stream)
{
    if (shape.outer * shape.inner * shape.k == 0)
    {
        return cudaSuccess;
    }
    switch (type)
    {
    case nvinfer1::DataType::kHALF: return runTopk<__half, uint16_t>(shape, input, values, indices, workspace, stream);
    case nvinfer1::DataType::kBF16:
        return runTopk<__nv_bfloat16, uint16_t>(shape, input, values, indices, workspace, stream);
    case nvinfer1::DataType::kINT32:
        return runTopk<int32_t, uint32_t>(shape, input, values, indices, workspace, stream);
    default: return runTopk<float, uint32_t>(shape, input, values, indices, workspace, stream);
    }
}

} // namespace kiln::plugins
