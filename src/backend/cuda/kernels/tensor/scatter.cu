// IScatterLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/scatter.h), whose host checks of types,
// shapes and parameters it shares: the data is copied into the output, then one thread per update finds the element
// the update lands on.
// - Without a reduction the thread stores the update as bytes of its size (one kernel per element size serves every
//   byte-addressable type). Of duplicate indices any one update may remain, where the CPU keeps the last in order.
// - A reduction combines atomically, through a compare-and-swap of the aligned 32- or 64-bit word holding the
//   element (so 8- and 16-bit elements too), with the CPU's arithmetic (backend/shared/scatter_combine.h). Updates of
//   one element combine in any order, so floating-point sums and products may round differently from the CPU's.
// The indices live in device memory, and reading them on the host would make the stream wait, so an index the CPU
// reference rejects (out of range after negatives count from the end) cannot be reported here: its update is
// skipped, and the element keeps what the data and the other updates give it.
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/shared/scatter_combine.h"
#include "backend/shared/scatter_geometry.h"

#include <cstdint>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr char const* kKernel = "scatter";

//! kELEMENT: update u lands on its own coordinates, with the one along the axis replaced by its index.
struct ElementScatter
{
    device::StridedShape offAxis; //!< the indices' extents with the data's strides, 0 along the axis
    int64_t axisStride;
    int64_t axisExtent;
};

//! kND: update u belongs to tuple u / slice, whose k coordinates pick where its slice starts.
struct NdScatter
{
    int32_t coordinateCount;
    int64_t extents[device::kMaxRank]; //!< the data extents the coordinates address
    int64_t strides[device::kMaxRank]; //!< their strides in the data
    int64_t slice;
};

//! The output element update `u` lands on, or -1 when one of its indices is out of range.
__device__ int64_t targetOf(ElementScatter const& g, void const* indices, DataType indexType, int64_t u)
{
    int64_t const index = device::resolveIndex(indices, indexType, u, g.axisExtent);
    return index < 0 ? -1 : device::stridedOffset(u, g.offAxis) + index * g.axisStride;
}

__device__ int64_t targetOf(NdScatter const& g, void const* indices, DataType indexType, int64_t u)
{
    int64_t const tuple = u / g.slice;
    int64_t target = u % g.slice;
    for (int32_t c = 0; c < g.coordinateCount; ++c)
    {
        int64_t const index = device::resolveIndex(indices, indexType, tuple * g.coordinateCount + c, g.extents[c]);
        if (index < 0)
        {
            return -1;
        }
        target += index * g.strides[c];
    }
    return target;
}

template <typename T, typename Geometry>
__global__ void replaceKernel(
    T const* updates, void const* indices, DataType indexType, T* output, Geometry g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(u, count)
    {
        int64_t const target = targetOf(g, indices, indexType, u);
        if (target >= 0)
        {
            output[target] = updates[u];
        }
    }
}

//! The element held in the low bytes of `bits` combined with update `u`, in the same low bytes.
__device__ uint64_t combinedBits(
    uint64_t bits, DataType type, ScatterReduction reduction, void const* updates, int64_t u)
{
    uint64_t cell = bits;
    if (isFloatType(type))
    {
        float const element = device::loadFloat(&cell, type, 0);
        float const update = device::loadFloat(updates, type, u);
        device::storeFloat(&cell, type, 0, scatter_detail::combineFloats(reduction, element, update));
    }
    else
    {
        int64_t const element = device::loadInteger(&cell, type, 0);
        int64_t const update = device::loadInteger(updates, type, u);
        device::storeInteger(&cell, type, 0, scatter_detail::combineIntegers(reduction, element, update));
    }
    return cell;
}

//! Combines update `u` into output element `target` atomically, by compare-and-swap of the word that holds it.
__device__ void combineAt(
    void* output, DataType type, int64_t target, ScatterReduction reduction, void const* updates, int64_t u)
{
    size_t const bytes = elementSize(type);
    auto const address = reinterpret_cast<uintptr_t>(static_cast<uint8_t*>(output) + target * bytes);
    if (bytes == 8)
    {
        auto* word = reinterpret_cast<unsigned long long*>(address);
        unsigned long long old = *word;
        unsigned long long assumed = 0;
        do
        {
            assumed = old;
            old = atomicCAS(word, assumed, combinedBits(assumed, type, reduction, updates, u));
        } while (old != assumed);
        return;
    }
    // 1, 2 or 4 bytes: the aligned 32-bit word around the element, which lies `shift` bits up in it.
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t{3});
    unsigned int const shift = static_cast<unsigned int>(address & 3U) * 8U;
    unsigned int const mask = bytes == 4 ? 0xFFFFFFFFU : (1U << (bytes * 8U)) - 1U;
    unsigned int old = *word;
    unsigned int assumed = 0;
    do
    {
        assumed = old;
        uint64_t const element = (assumed >> shift) & mask;
        auto const next = static_cast<unsigned int>(combinedBits(element, type, reduction, updates, u)) & mask;
        old = atomicCAS(word, assumed, (assumed & ~(mask << shift)) | (next << shift));
    } while (old != assumed);
}

template <typename Geometry>
__global__ void combineKernel(void const* updates, DataType type, ScatterReduction reduction, void const* indices,
    DataType indexType, void* output, Geometry g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(u, count)
    {
        int64_t const target = targetOf(g, indices, indexType, u);
        if (target >= 0)
        {
            combineAt(output, type, target, reduction, updates, u);
        }
    }
}

ElementScatter elementScatter(Shape const& data, Shape const& indices, int32_t axis)
{
    std::vector<int64_t> const strides = device::rowMajorStrides(data);
    std::vector<int64_t> offAxis = strides;
    offAxis[static_cast<size_t>(axis)] = 0;
    return ElementScatter{device::makeStridedShape(indices, offAxis), strides[static_cast<size_t>(axis)],
        data[static_cast<size_t>(axis)]};
}

NdScatter ndScatter(Shape const& data, backend::ScatterGeometry const& geometry)
{
    std::vector<int64_t> const strides = device::rowMajorStrides(data);
    NdScatter g{};
    g.coordinateCount = static_cast<int32_t>(geometry.coordinateCount);
    for (size_t c = 0; c < static_cast<size_t>(geometry.coordinateCount); ++c)
    {
        g.extents[c] = data[c];
        g.strides[c] = strides[c];
    }
    g.slice = geometry.slice;
    return g;
}

template <typename Geometry>
void launch(Geometry const& g, ScatterReduction reduction, ConstTensorView const& indices,
    ConstTensorView const& updates, TensorView const& output, cudaStream_t stream)
{
    int64_t const count = updates.count();
    if (reduction != ScatterReduction::kNONE)
    {
        combineKernel<Geometry><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            updates.data, updates.type, reduction, indices.data, indices.type, output.data, g, count);
        return;
    }
    device::withElementOfSize(elementSize(updates.type), kKernel, [&](auto element) {
        using T = decltype(element);
        replaceKernel<T, Geometry><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<T const*>(updates.data), indices.data, indices.type, static_cast<T*>(output.data), g, count);
    });
}

} // namespace

void run(
    network::ScatterParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    ConstTensorView const& data = inputs[0];
    ConstTensorView const& indices = inputs[1];
    ConstTensorView const& updates = inputs[2];
    TensorView const& output = outputs[0];
    backend::ScatterGeometry const geometry = backend::scatterGeometry(data, indices, updates, output, params);
    if (data.rank() > device::kMaxRank)
    {
        throw std::invalid_argument("scatter: the CUDA backend takes tensors of rank at most 8");
    }
    if (output.count() == 0)
    {
        return;
    }
    if (output.data != data.data)
    {
        size_t const bytes = static_cast<size_t>(data.count()) * elementSize(data.type);
        check(cudaMemcpyAsync(output.data, data.data, bytes, cudaMemcpyDeviceToDevice, stream),
            "scatter: copying the data");
    }
    if (updates.count() == 0)
    {
        return;
    }
    if (params.mode == nvinfer1::ScatterMode::kELEMENT)
    {
        launch(elementScatter(data.shape, indices.shape, geometry.axis), params.reduction, indices, updates, output,
            stream);
    }
    else
    {
        launch(ndScatter(data.shape, geometry), params.reduction, indices, updates, output, stream);
    }
    check(cudaGetLastError(), "scatter: launching the kernel");
}

} // namespace kiln::cuda
