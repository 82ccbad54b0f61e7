#include "topk_kernels.h"

#include "common/grid_size.h"
#include "common/score_sort.cuh"
#include "common/workspace_layout.h"

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

struct TopkBuffers
{
    uint32_t* keysIn;
    uint32_t* keysOut;
    int32_t* indicesIn;
    int32_t* indicesOut;
    int32_t* offsets;
    void* sortTemp;
    size_t sortBytes;

    TopkBuffers(WorkspaceLayout& layout, TopkShape const& shape)
    {
        int64_t const rows = shape.outer * shape.inner;
        int64_t const items = rows * shape.length;
        keysIn = layout.take<uint32_t>(items);
        keysOut = layout.take<uint32_t>(items);
        indicesIn = layout.take<int32_t>(items);
        indicesOut = layout.take<int32_t>(items);
        offsets = layout.take<int32_t>(rows + 1);
        size_t ascendingBytes = 0;
        cub::DeviceSegmentedRadixSort::SortPairs(nullptr, ascendingBytes, keysIn, keysOut, indicesIn, indicesOut,
            static_cast<int32_t>(items), static_cast<int32_t>(rows), offsets, offsets + 1, 0, 32);
        size_t const descendingBytes
            = sortSegmentsTempBytes(static_cast<int32_t>(items), static_cast<int32_t>(rows));
        sortBytes = std::max(ascendingBytes, descendingBytes);
        sortTemp = layout.take<uint8_t>(sortBytes);
    }
};

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

//! Keys laid out [outer, inner, length]: each row contiguous, ready for the segmented sort.
template <typename T>
__global__ void topkKeys(T const* input, TopkShape shape, uint32_t* keys, int32_t* indices)
{
    int64_t const items = shape.outer * shape.length * shape.inner;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const row = i / shape.length;
        int64_t const at = i % shape.length;
        int64_t const outer = row / shape.inner;
        int64_t const inner = row % shape.inner;
        keys[i] = keyOf(input[(outer * shape.length + at) * shape.inner + inner]);
        indices[i] = static_cast<int32_t>(at);
    }
}

template <typename T>
__global__ void topkGather(T const* input, TopkShape shape, int32_t const* sorted, T* values, int32_t* indices)
{
    int64_t const items = shape.outer * shape.k * shape.inner;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const inner = i % shape.inner;
        int64_t const rank = (i / shape.inner) % shape.k;
        int64_t const outer = i / (shape.inner * shape.k);
        int32_t const index = sorted[(outer * shape.inner + inner) * shape.length + rank];
        values[i] = input[(outer * shape.length + index) * shape.inner + inner];
        indices[i] = index;
    }
}

template <typename T>
cudaError_t runTopk(TopkShape const& shape, void const* input, void* values, int32_t* indices, void* workspace,
    cudaStream_t stream)
{
    WorkspaceLayout layout(workspace);
    TopkBuffers buffers(layout, shape);
    auto const rows = static_cast<int32_t>(shape.outer * shape.inner);
    auto const items = static_cast<int32_t>(shape.outer * shape.inner * shape.length);
    auto const* data = static_cast<T const*>(input);
    topkKeys<T><<<gridBlocks(items), kGridThreads, 0, stream>>>(data, shape, buffers.keysIn, buffers.indicesIn);
    fillSegmentOffsets<<<gridBlocks(rows + 1), kGridThreads, 0, stream>>>(
        buffers.offsets, rows, static_cast<int32_t>(shape.length));
    cudaError_t status = shape.largest
        ? sortSegmentsDescending(buffers.sortTemp, buffers.sortBytes, buffers.keysIn, buffers.keysOut,
            buffers.indicesIn, buffers.indicesOut, items, rows, buffers.offsets, stream)
        : cub::DeviceSegmentedRadixSort::SortPairs(buffers.sortTemp, buffers.sortBytes, buffers.keysIn,
            buffers.keysOut, buffers.indicesIn, buffers.indicesOut, items, rows, buffers.offsets,
            buffers.offsets + 1, 0, 32, stream);
    if (status != cudaSuccess)
    {
        return status;
    }
    int64_t const outputs = shape.outer * shape.k * shape.inner;
    topkGather<T><<<gridBlocks(outputs), kGridThreads, 0, stream>>>(
        data, shape, buffers.indicesOut, static_cast<T*>(values), indices);
    return cudaGetLastError();
}

} // namespace

size_t topkWorkspaceSize(TopkShape const& shape)
{
    WorkspaceLayout layout;
    TopkBuffers const buffers(layout, shape);
    (void) buffers;
    return layout.size();
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
    case nvinfer1::DataType::kHALF: return runTopk<__half>(shape, input, values, indices, workspace, stream);
    case nvinfer1::DataType::kBF16: return runTopk<__nv_bfloat16>(shape, input, values, indices, workspace, stream);
    case nvinfer1::DataType::kINT32: return runTopk<int32_t>(shape, input, values, indices, workspace, stream);
    default: return runTopk<float>(shape, input, values, indices, workspace, stream);
    }
}

} // namespace kiln::plugins
