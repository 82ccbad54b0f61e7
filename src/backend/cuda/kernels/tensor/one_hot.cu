// IOneHotLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/one_hot.h): the indices' shape with a
// dim of extent depth inserted at `axis`; element j along it is values[1] ("on") where the index (negative ones
// counting from depth) is j, else values[0] ("off"). Indices outside [-depth, depth) give an all-off row.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! Output layout [outer][depth][inner], where outer x inner enumerate the indices.
template <typename T>
__global__ void oneHotKernel(
    void const* indices, DataType indexType, T const* values, T* output, int64_t depth, int64_t inner, int64_t count)
{
    T const off = values[0];
    T const on = values[1];
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const within = i % inner;
        int64_t const j = (i / inner) % depth;
        int64_t const outer = i / (inner * depth);
        int64_t index = device::loadInteger(indices, indexType, outer * inner + within);
        index = index < 0 ? index + depth : index;
        output[i] = index == j ? on : off;
    }
}

//! Indices INT32 or INT64; values two elements of the output's type, of any byte-addressable type (copied as bytes).
//! The depth is the output's extent along the axis: the layer's depth input is a shape tensor whose value already
//! decided that shape, so the kernel does not read it. Throws std::invalid_argument for shapes and types the CPU
//! reference refuses.
void oneHotOnDevice(int32_t axis, ConstTensorView const& indices, ConstTensorView const& values,
    TensorView const& output, cudaStream_t stream)
{
    int32_t const outputRank = output.rank();
    if (outputRank != indices.rank() + 1 || axis < -outputRank || axis >= outputRank)
    {
        throw std::invalid_argument("oneHot: axis " + std::to_string(axis) + " is out of range for an output of rank "
            + std::to_string(indices.rank() + 1));
    }
    auto const a = static_cast<size_t>(axis < 0 ? axis + outputRank : axis);
    Shape expected = indices.shape;
    expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(a), output.shape[a]);
    if (output.shape != expected)
    {
        throw std::invalid_argument("oneHot: the output's shape is not the indices' shape with the depth inserted");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        throw std::invalid_argument("oneHot: indices must be INT32 or INT64");
    }
    if (values.count() != 2 || values.type != output.type)
    {
        throw std::invalid_argument("oneHot: values must hold [off, on] in the output's type");
    }
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    int64_t const depth = output.shape[a];
    int64_t inner = 1;
    for (size_t d = a; d < indices.shape.size(); ++d)
    {
        inner *= indices.shape[d];
    }
    device::withElementOfSize(elementSize(output.type), "oneHot", [&](auto element) {
        using T = decltype(element);
        oneHotKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(indices.data, indices.type,
            static_cast<T const*>(values.data), static_cast<T*>(output.data), depth, inner, count);
    });
    check(cudaGetLastError(), "oneHot: launching the kernel");
}

} // namespace

void run(
    network::OneHotParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    oneHotOnDevice(params.axis, inputs[0], inputs[1], outputs[0], stream);
}

} // namespace kiln::cuda
