// IGatherLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/gather.h): kDEFAULT (with 0 or 1
// element-wise dims), kELEMENT and kND (with any number of element-wise dims). Indices are INT32 or INT64 and
// negative ones count from the end. kDEFAULT by a vector of indices also gathers channels-last (kHWC) data.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/storage_order.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

using device::resolveIndex;

//! kDEFAULT: output [batch, outer, j, inner] reads data [batch, outer, indices[batch, j], inner].
struct DefaultGather
{
    int64_t outerCount;      //!< volume of data dims [batchDims, axis)
    int64_t indicesPerBatch; //!< volume of indices dims [batchDims, rank)
    int64_t axisExtent;
    int64_t inner; //!< volume of data dims after the axis
};

//! `Index` counts elements: 32 bits where every offset into the data and the output fits (a division by a runtime
//! value then costs a fraction of a 64-bit one), else 64.
template <typename T, typename Index>
__global__ void defaultGatherKernel(
    T const* data, void const* indices, DataType indexType, T* output, DefaultGather g, Index count)
{
    auto const inner = static_cast<Index>(g.inner);
    auto const perBatch = static_cast<Index>(g.indicesPerBatch);
    auto const axisExtent = static_cast<Index>(g.axisExtent);
    for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<Index>(blockDim.x) * gridDim.x)
    {
        Index const within = i % inner;
        Index const j = (i / inner) % perBatch;
        Index const outer = i / (inner * perBatch); // batch * outerCount + outer
        Index const batch = outer / static_cast<Index>(g.outerCount);
        int64_t const index = resolveIndex(indices, indexType, batch * perBatch + j, g.axisExtent);
        output[i] = index < 0 ? T{0} : data[(outer * axisExtent + static_cast<Index>(index)) * inner + within];
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

//! kND: each tuple of k indices (the last indices dim) picks a slice data[batch, i0, ..., ik-1, ...]; output
//! [batch, tuple, slice element].
struct NdGather
{
    int32_t coordinateCount;           //!< k
    int64_t extents[device::kMaxRank]; //!< data extents of the dims the coordinates address
    int64_t strides[device::kMaxRank]; //!< their strides in the data
    int64_t tuplesPerBatch;            //!< volume of indices dims [batchDims, rank - 1)
    int64_t batchVolume;               //!< volume of data dims [batchDims, rank)
    int64_t slice;                     //!< volume of data dims [batchDims + k, rank)
};

template <typename T>
__global__ void ndGatherKernel(
    T const* data, void const* indices, DataType indexType, T* output, NdGather g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const tuple = i / g.slice; // batch * tuplesPerBatch + tuple within the batch
        int64_t offset = (tuple / g.tuplesPerBatch) * g.batchVolume + i % g.slice;
        bool inRange = true;
        for (int32_t c = 0; c < g.coordinateCount; ++c)
        {
            int64_t const index = resolveIndex(indices, indexType, tuple * g.coordinateCount + c, g.extents[c]);
            inRange = inRange && index >= 0;
            offset += index * g.strides[c];
        }
        output[i] = inRange ? data[offset] : T{0};
    }
}

int64_t product(Shape const& shape, size_t begin, size_t end)
{
    int64_t p = 1;
    for (size_t d = begin; d < end; ++d)
    {
        p *= shape[d];
    }
    return p;
}

//! Axis `axis` of a rank-`rank` tensor in [0, rank); throws when it is out of range.
size_t normalizedAxis(int32_t axis, int32_t rank)
{
    if (axis < -rank || axis >= rank)
    {
        throw std::invalid_argument(
            "gather: axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    return static_cast<size_t>(axis < 0 ? axis + rank : axis);
}

//! A gather of channels-last (kHWC) `data` into a channels-last `output` by a vector of indices (a channel shuffle in
//! a channels-last region): the output keeps the data's rank and axis order, so `g`'s elements before and after
//! `axis` are counted in storage order instead. Throws std::invalid_argument for any other formats.
void storageOrderGather(size_t axis, size_t batchDims, ConstTensorView const& data, ConstTensorView const& indices,
    TensorView const& output, DefaultGather& g)
{
    if (data.format != TensorFormat::kHWC || output.format != TensorFormat::kHWC || indices.shape.size() != 1
        || batchDims != 0 || data.shape.size() < 3)
    {
        throw std::invalid_argument("gather: the CUDA backend gathers channels-last (kHWC) data only by a vector of "
                                    "indices into a channels-last output");
    }
    size_t const rank = data.shape.size();
    g.outerCount = 1;
    g.inner = 1;
    bool past = false;
    for (size_t position = 0; position < rank; ++position)
    {
        size_t const stored = storedAxisAt(TensorFormat::kHWC, rank, position);
        if (stored == axis)
        {
            past = true;
            continue;
        }
        (past ? g.inner : g.outerCount) *= data.shape[stored];
    }
}

void defaultGather(int32_t axis, int32_t numElementWiseDims, ConstTensorView const& data,
    ConstTensorView const& indices, TensorView const& output, size_t bytes, cudaStream_t stream)
{
    size_t const a = normalizedAxis(axis, data.rank());
    auto const batchDims = static_cast<size_t>(numElementWiseDims);
    if (numElementWiseDims < 0 || numElementWiseDims > 1 || batchDims > a || indices.shape.size() < batchDims
        || (batchDims == 1 && indices.shape[0] != data.shape[0]))
    {
        throw std::invalid_argument(
            "gather: kDEFAULT needs numElementWiseDims 0, or 1 with gatherAxis >= 1 and a shared first dim");
    }
    Shape expected(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
    expected.insert(
        expected.end(), indices.shape.begin() + static_cast<std::ptrdiff_t>(batchDims), indices.shape.end());
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
    if (data.format != TensorFormat::kLINEAR || output.format != TensorFormat::kLINEAR)
    {
        storageOrderGather(a, batchDims, data, indices, output, g);
    }
    // Grid-stride steps stay below 2^32 past any index of either tensor.
    bool const narrow = std::max(count, data.count()) <= INT32_MAX;
    device::withElementOfSize(bytes, "gather", [&](auto element) {
        using T = decltype(element);
        auto const* from = static_cast<T const*>(data.data);
        auto* to = static_cast<T*>(output.data);
        unsigned const blocks = device::blocksFor(count);
        if (narrow)
        {
            defaultGatherKernel<T, uint32_t><<<blocks, device::kThreadsPerBlock, 0, stream>>>(
                from, indices.data, indices.type, to, g, static_cast<uint32_t>(count));
        }
        else
        {
            defaultGatherKernel<T, int64_t>
                <<<blocks, device::kThreadsPerBlock, 0, stream>>>(from, indices.data, indices.type, to, g, count);
        }
    });
}

void elementGather(int32_t axis, int32_t numElementWiseDims, ConstTensorView const& data,
    ConstTensorView const& indices, TensorView const& output, size_t bytes, cudaStream_t stream)
{
    size_t const a = normalizedAxis(axis, data.rank());
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
            static_cast<T const*>(data.data), indices.data, indices.type, static_cast<T*>(output.data), dataOffsets,
            strides[a], data.shape[a], count);
    });
}

//! kND ignores the gather axis, as the CPU reference does.
void ndGather(int32_t numElementWiseDims, ConstTensorView const& data, ConstTensorView const& indices,
    TensorView const& output, size_t bytes, cudaStream_t stream)
{
    auto const batchDims = static_cast<size_t>(numElementWiseDims);
    if (numElementWiseDims < 0 || indices.shape.empty() || batchDims >= indices.shape.size()
        || batchDims >= data.shape.size())
    {
        throw std::invalid_argument(
            "gather: kND needs indices of rank > numElementWiseDims and data of rank > numElementWiseDims");
    }
    for (size_t d = 0; d < batchDims; ++d)
    {
        if (data.shape[d] != indices.shape[d])
        {
            throw std::invalid_argument("gather: element-wise dim " + std::to_string(d)
                + " differs between data and "
                  "indices");
        }
    }
    int64_t const coordinateCount = indices.shape.back();
    if (coordinateCount < 1 || coordinateCount > static_cast<int64_t>(data.shape.size() - batchDims))
    {
        throw std::invalid_argument("gather: kND: last indices dim " + std::to_string(coordinateCount)
            + " must lie in [1, " + std::to_string(data.shape.size() - batchDims) + "]");
    }
    auto const k = static_cast<size_t>(coordinateCount);
    Shape expected(indices.shape.begin(), indices.shape.end() - 1);
    expected.insert(expected.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(batchDims + k), data.shape.end());
    if (output.shape != expected)
    {
        throw std::invalid_argument("gather: the output's shape is not the gathered shape");
    }
    if (data.shape.size() > static_cast<size_t>(device::kMaxRank))
    {
        throw std::invalid_argument("gather: the CUDA backend takes tensors of rank at most 8");
    }
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    std::vector<int64_t> const strides = device::rowMajorStrides(data.shape);
    NdGather g{};
    g.coordinateCount = static_cast<int32_t>(k);
    for (size_t c = 0; c < k; ++c)
    {
        g.extents[c] = data.shape[batchDims + c];
        g.strides[c] = strides[batchDims + c];
    }
    g.tuplesPerBatch = product(indices.shape, batchDims, indices.shape.size() - 1);
    g.batchVolume = product(data.shape, batchDims, data.shape.size());
    g.slice = product(data.shape, batchDims + k, data.shape.size());
    device::withElementOfSize(bytes, "gather", [&](auto element) {
        using T = decltype(element);
        ndGatherKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<T const*>(data.data), indices.data, indices.type, static_cast<T*>(output.data), g, count);
    });
}

//! Data of any byte-addressable type. The indices are read on the device, so an index still out of range (which the
//! CPU reference rejects) cannot be reported without waiting for the GPU: its output elements are written as zero
//! bytes instead (for kND: the whole slice a tuple with such an index picks). Throws std::invalid_argument for shapes
//! the CPU reference refuses.
void gatherOnDevice(nvinfer1::GatherMode mode, int32_t axis, int32_t numElementWiseDims, ConstTensorView const& data,
    ConstTensorView const& indices, TensorView const& output, cudaStream_t stream)
{
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        throw std::invalid_argument("gather: indices must be INT32 or INT64");
    }
    if (data.type != output.type)
    {
        throw std::invalid_argument("gather: the data and output types differ");
    }
    bool const linear = data.format == TensorFormat::kLINEAR && output.format == TensorFormat::kLINEAR
        && indices.format == TensorFormat::kLINEAR;
    if (!linear && (mode != nvinfer1::GatherMode::kDEFAULT || indices.format != TensorFormat::kLINEAR))
    {
        throw std::invalid_argument("gather: the CUDA backend gathers channels-last data only in kDEFAULT mode, by "
                                    "row-major indices");
    }
    size_t const bytes = elementSize(data.type);
    switch (mode)
    {
    case nvinfer1::GatherMode::kDEFAULT:
        defaultGather(axis, numElementWiseDims, data, indices, output, bytes, stream);
        break;
    case nvinfer1::GatherMode::kELEMENT:
        elementGather(axis, numElementWiseDims, data, indices, output, bytes, stream);
        break;
    case nvinfer1::GatherMode::kND: ndGather(numElementWiseDims, data, indices, output, bytes, stream); break;
    default: throw std::invalid_argument("gather: unknown gather mode");
    }
    check(cudaGetLastError(), "gather: launching the kernel");
}

} // namespace

void run(
    network::GatherParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    gatherOnDevice(params.mode, params.gatherAxis, params.numElementWiseDims, inputs[0], inputs[1], outputs[0], stream);
}

} // namespace kiln::cuda
