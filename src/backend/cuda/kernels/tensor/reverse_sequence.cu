// IReverseSequenceLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/reverse_sequence.h): one thread
// per output element, which copies the element its batch index's length says it reads. Elements move as unsigned
// integers of their size, so one kernel per size serves every byte-addressable type.
//
// The lengths live in device memory, and reading them on the host would make the stream wait, so a length the CPU
// reference rejects (below 0, or above the sequence axis' extent) cannot be reported here: it is clamped into
// [0, extent] instead. A negative length then copies its batch index's elements unchanged, and a length above the
// extent reverses the whole sequence axis. The shapes, types and axes, known on the host, are checked as on the CPU.
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "core/dims_text.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr char const* kKernel = "reverseSequence";

//! Where the batch and sequence axes lie in the row-major input, passed to the kernel by value.
struct SequenceGeometry
{
    int64_t batchStride;
    int64_t batchExtent;
    int64_t sequenceStride;
    int64_t sequenceExtent;
};

template <typename T>
__global__ void reverseSequenceKernel(
    T const* input, void const* lengths, DataType lengthsType, T* output, SequenceGeometry g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const b = i / g.batchStride % g.batchExtent;
        int64_t const t = i / g.sequenceStride % g.sequenceExtent;
        int64_t const raw = device::loadInteger(lengths, lengthsType, b);
        int64_t const length = raw < 0 ? 0 : (raw > g.sequenceExtent ? g.sequenceExtent : raw);
        // Position t of a reversed prefix reads position length - 1 - t, which lies (length - 1 - 2t) steps away.
        int64_t const from = t < length ? i + (length - 1 - 2 * t) * g.sequenceStride : i;
        output[i] = input[from];
    }
}

[[noreturn]] void fail(std::string const& message)
{
    throw std::invalid_argument(std::string(kKernel) + ": " + message);
}

//! The CPU reference's checks of everything the host knows: shapes, types and axes.
void checkArguments(network::ReverseSequenceParams const& params, ConstTensorView const& input,
    ConstTensorView const& sequenceLens, TensorView const& output)
{
    if (output.shape != input.shape || output.type != input.type)
    {
        fail("output has shape " + shapeText(output.shape) + " and type " + dataTypeName(output.type)
            + "; expected the input's, " + shapeText(input.shape) + " and " + dataTypeName(input.type));
    }
    int32_t const rank = input.rank();
    if (rank < 2)
    {
        fail("input has rank " + std::to_string(rank) + "; expected 2 or more");
    }
    for (int32_t axis : {params.batchAxis, params.sequenceAxis})
    {
        if (axis < 0 || axis >= rank)
        {
            fail("axis " + std::to_string(axis) + " is out of range [0, " + std::to_string(rank) + ")");
        }
    }
    if (params.batchAxis == params.sequenceAxis)
    {
        fail("the batch axis and the sequence axis are both " + std::to_string(params.batchAxis));
    }
    if (sequenceLens.type != DataType::kINT32 && sequenceLens.type != DataType::kINT64)
    {
        fail("sequence lengths must be INT32 or INT64, not " + dataTypeName(sequenceLens.type));
    }
    int64_t const batchExtent = input.shape[static_cast<size_t>(params.batchAxis)];
    if (sequenceLens.rank() != 1 || sequenceLens.shape[0] != batchExtent)
    {
        fail("sequence lengths have shape " + shapeText(sequenceLens.shape) + "; expected ["
            + std::to_string(batchExtent) + "], one length per index of the batch axis");
    }
}

} // namespace

void run(network::ReverseSequenceParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    ConstTensorView const& input = inputs[0];
    ConstTensorView const& sequenceLens = inputs[1];
    TensorView const& output = outputs[0];
    checkArguments(params, input, sequenceLens, output);
    size_t const bytes = elementSize(input.type);
    if (bytes == 0)
    {
        fail("type " + dataTypeName(input.type) + " is not byte-addressable");
    }
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    Shape const strides = contiguousStrides(input.shape);
    auto const batchAxis = static_cast<size_t>(params.batchAxis);
    auto const sequenceAxis = static_cast<size_t>(params.sequenceAxis);
    SequenceGeometry const geometry{
        strides[batchAxis], input.shape[batchAxis], strides[sequenceAxis], input.shape[sequenceAxis]};
    device::withElementOfSize(bytes, kKernel, [&](auto element) {
        using T = decltype(element);
        reverseSequenceKernel<T>
            <<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(static_cast<T const*>(input.data),
                sequenceLens.data, sequenceLens.type, static_cast<T*>(output.data), geometry, count);
    });
    check(cudaGetLastError(), "reverseSequence: launching the kernel");
}

} // namespace kiln::cuda
