#include "backend/cuda/gather.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/strided_index.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! The index at `position` mapped into [0, extent), or -1 when it is out of range.
__device__ int64_t resolveIndex(void const* indices, DataType type, int64_t position, int64_t extent)
{
    int64_t const raw = device::loadInteger(indices, type, position);
    int64_t const index = raw < 0 ? raw + extent : raw;
    return index >= 0 && index < extent ? index : -1;
}

//! kDEFAULT: output [batch, outer, j, inner] reads data [batch, outer, indices[batch, j], inner].
struct DefaultGather
{
    int64_t outerCount;      //!< volume of data dims [batchDims, axis)
    int64_t indicesPerBatch; //!< volume of indices dims [batchDims, rank)
    int64_t axisExtent;
    int64_t inner; //!< volume of data dims after the axis
};

template <typename T>
__global__ void defaultGatherKernel(T const* data, void const* indices, DataType indexType, T* output, DefaultGather g,
    int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const within = i % g.inner;
        int64_t const j = (i / g.inner) % g.indicesPerBatch;
        int64_t const outer = i / (g.inner * g.indicesPerBatch); // batch * outerCount + outer
        int64_t const batch = outer / g.outerCount;
        int64_t const index = resolveIndex(indices, indexType, batch * g.indicesPerBatch + j, g.axisExtent);
        output[i] = index < 0 ? T{0} : data[(outer * g.axisExtent + index) * g.inner + within];
    }
}

//! kELEMENT: output[c] = data[c with c[axis] replaced by indices[c]]; the output has the indices' shape.
template <typename T>
__global__ void elementGatherKernel(T const* data, void const* indices, DataType indexType, T* output,
    device::StridedShape dataOffsets, int64_t axisStride, int64_t axisExtent, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const index = resolveIndex(indices, indexType, i, axisExtent);
        // dataOffsets has the indices' extents and the data's strides, 0 along the axis where the index decides.
        output[i] = index < 0 ? T{0} : data[device::stridedOffset(i, dataOffsets) + index * axisStride];
    }
}

int64_t product(cpu::Shape const& shape, size_t begin, size_t end)
{
    int64_t p = 1;
    for (size_t d = begin; d < end; ++d)
    {
        p *= shape[d];
    }
    return p;
}

} // namespace

void gatherOnDevice(nvinfer1::GatherMode mode, int32_t axis, int32_t numElementWiseDims,
    cpu::ConstTensorView const& data, cpu::ConstTensorView const& indices, cpu::TensorView const& output,
    cudaStream_t stream)
{
    int32_t const rank = data.rank();
    if (axis < -rank || axis >= rank)
    {
        throw std::invalid_argument("gather: axis " + std::to_string(axis) + " is out of range for rank "
            + std::to_string(rank));
    }
    auto const a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        throw std::invalid_argument("gather: indices must be INT32 or INT64");
    }
    if (data.type != output.type)
    {
        throw std::invalid_argument("gather: the data and output types differ");
    }
    size_t const bytes = cpu::elementSize(data.type);
    if (mode == nvinfer1::GatherMode::kDEFAULT)
    {
        auto const batchDims = static_cast<size_t>(numElementWiseDims);
        if (numElementWiseDims < 0 || numElementWiseDims > 1 || batchDims > a || indices.shape.size() < batchDims
            || (batchDims == 1 && indices.shape[0] != data.shape[0]))
        {
            throw std::invalid_argument(
                "gather: kDEFAULT needs numElementWiseDims 0, or 1 with gatherAxis >= 1 and a shared first dim");
        }
        cpu::Shape expected(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
        expected.insert(expected.end(), indices.shape.begin() + static_cast<std::ptrdiff_t>(batchDims), indices.shape.end());
        expected.insert(expected.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.shape.end());
        if (output.shape != expected)
        {
            throw std::invalid_argument("gather: the output's shape is not the gathered shape");
        }
        int64_t const count = output.count();
        if (count == 0)
        {
            return;
        }
        DefaultGather g{product(data.shape, batchDims, a), product(indices.shape, batchDims, indices.shape.size()),
            data.shape[a], product(data.shape, a + 1, data.shape.size())};
        device::withElementOfSize(bytes, "gather", [&](auto element) {
            using T = decltype(element);
            defaultGatherKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<T const*>(data.data), indices.data, indices.type, static_cast<T*>(output.data), g, count);
        });
    }
    else if (mode == nvinfer1::GatherMode::kELEMENT)
    {
        bool valid = numElementWiseDims == 0 && indices.shape.size() == data.shape.size() && output.shape == indices.shape;
        for (size_t d = 0; valid && d < data.shape.size(); ++d)
        {
            valid = d == a || indices.shape[d] <= data.shape[d];
        }
        if (!valid)
        {
            throw std::invalid_argument("gather: kELEMENT needs numElementWiseDims 0 and indices of the data's rank "
                                        "that fit in the data off the axis");
        }
        int64_t const count = output.count();
        if (count == 0)
        {
            return;
        }
        std::vector<int64_t> const strides = device::rowMajorStrides(data.shape);
        std::vector<int64_t> offsets = strides;
        offsets[a] = 0;
        device::StridedShape const dataOffsets = device::makeStridedShape(indices.shape, offsets);
        device::withElementOfSize(bytes, "gather", [&](auto element) {
            using T = decltype(element);
            elementGatherKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<T const*>(data.data), indices.data, indices.type, static_cast<T*>(output.data),
                dataOffsets, strides[a], data.shape[a], count);
        });
    }
    else
    {
        throw std::invalid_argument("gather: the CUDA backend has no kND gather yet");
    }
    check(cudaGetLastError(), "gather: launching the kernel");
}

} // namespace kiln::cuda
