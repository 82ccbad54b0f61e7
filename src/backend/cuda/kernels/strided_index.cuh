// Index arithmetic shared by the data-movement kernels: turning a linear output index into
// coordinates and input offsets, and picking a copy type from an element's byte size, so
// that every byte-addressable type moves with one kernel per element size.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda::device
{

constexpr int32_t kMaxRank = nvinfer1::Dims::MAX_DIMS;

//! A shape and one set of strides over it, passed to kernels by value.
struct StridedShape
{
    int32_t rank{0};
    int64_t extents[kMaxRank]{};
    int64_t strides[kMaxRank]{};
};

//! The offset that `linear` (row-major over `shape.extents`) reaches through `shape.strides`.
__host__ __device__ inline int64_t stridedOffset(int64_t linear, StridedShape const& shape)
{
    int64_t offset = 0;
    for (int32_t axis = shape.rank - 1; axis >= 0; --axis)
    {
        int64_t const extent = shape.extents[axis];
        offset += (linear % extent) * shape.strides[axis];
        linear /= extent;
    }
    return offset;
}

//! Row-major strides of `extents`.
inline std::vector<int64_t> rowMajorStrides(std::vector<int64_t> const& extents)
{
    std::vector<int64_t> strides(extents.size(), 1);
    for (int64_t axis = static_cast<int64_t>(extents.size()) - 2; axis >= 0; --axis)
    {
        strides[axis] = strides[axis + 1] * extents[axis + 1];
    }
    return strides;
}

//! The strides of the logical axes [N, C, spatial...] of a tensor stored in `format`: row-major for kLINEAR; for
//! kHWC the channels innermost, then the spatial axes in order, then the batch.
inline std::vector<int64_t> storedStrides(std::vector<int64_t> const& extents, nvinfer1::TensorFormat format)
{
    if (format != nvinfer1::TensorFormat::kHWC || extents.size() < 3)
    {
        return rowMajorStrides(extents);
    }
    std::vector<int64_t> strides(extents.size(), 1);
    int64_t stride = extents[1];
    for (size_t axis = extents.size() - 1; axis >= 2; --axis)
    {
        strides[axis] = stride;
        stride *= extents[axis];
    }
    strides[0] = stride;
    return strides;
}

//! storedStrides written into `strides` (one per extent, at most kMaxRank), without allocating.
inline void storedStridesOf(std::vector<int64_t> const& extents, nvinfer1::TensorFormat format, int64_t* strides)
{
    size_t const rank = extents.size();
    int64_t stride = 1;
    if (format != nvinfer1::TensorFormat::kHWC || rank < 3)
    {
        for (size_t axis = rank; axis-- > 0;)
        {
            strides[axis] = stride;
            stride *= extents[axis];
        }
        return;
    }
    strides[1] = 1;
    stride = extents[1];
    for (size_t axis = rank - 1; axis >= 2; --axis)
    {
        strides[axis] = stride;
        stride *= extents[axis];
    }
    strides[0] = stride;
}

//! A StridedShape from host vectors; throws beyond kMaxRank.
inline StridedShape makeStridedShape(std::vector<int64_t> const& extents, std::vector<int64_t> const& strides)
{
    if (extents.size() > static_cast<size_t>(kMaxRank) || strides.size() != extents.size())
    {
        throw std::invalid_argument("the CUDA backend takes tensors of rank at most 8");
    }
    StridedShape shape;
    shape.rank = static_cast<int32_t>(extents.size());
    for (int32_t axis = 0; axis < shape.rank; ++axis)
    {
        shape.extents[axis] = extents[axis];
        shape.strides[axis] = strides[axis];
    }
    return shape;
}

//! Calls `copy(T{})` with the unsigned type of `bytes` bytes: kernels that only move elements are
//! instantiated once per size rather than once per data type.
template <typename Copy>
void withElementOfSize(size_t bytes, char const* what, Copy&& copy)
{
    switch (bytes)
    {
    case 1: copy(uint8_t{}); return;
    case 2: copy(uint16_t{}); return;
    case 4: copy(uint32_t{}); return;
    case 8: copy(uint64_t{}); return;
    default: throw std::invalid_argument(std::string(what) + ": the element type is not byte-addressable");
    }
}

//! The grid-stride loop's first index and step for the calling thread.
#define KILN_GRID_STRIDE_LOOP(i, count)                                                                                \
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (count);                         \
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)

} // namespace kiln::cuda::device
