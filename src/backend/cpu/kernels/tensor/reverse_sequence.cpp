#include "backend/cpu/kernels/tensor/reverse_sequence.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>
#include <vector>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "reverseSequence";

//! Throws unless the axes address two different axes of a tensor of `rank`.
void checkAxes(network::ReverseSequenceParams const& params, int32_t rank)
{
    if (rank < 2)
    {
        fail(kKernel, "input has rank " + std::to_string(rank) + "; expected 2 or more");
    }
    for (int32_t axis : {params.batchAxis, params.sequenceAxis})
    {
        if (axis < 0 || axis >= rank)
        {
            fail(kKernel, "axis " + std::to_string(axis) + " is out of range [0, " + std::to_string(rank) + ")");
        }
    }
    if (params.batchAxis == params.sequenceAxis)
    {
        fail(kKernel, "the batch axis and the sequence axis are both " + std::to_string(params.batchAxis));
    }
}

//! The lengths, one per batch index, each checked to lie in [0, sequenceExtent].
std::vector<int64_t> readLengths(ConstTensorView const& sequenceLens, int64_t batchExtent, int64_t sequenceExtent)
{
    if (!isIndexType(sequenceLens.type))
    {
        fail(kKernel, std::string("sequence lengths must be INT32 or INT64, not ") + dataTypeName(sequenceLens.type));
    }
    if (sequenceLens.rank() != 1 || sequenceLens.shape[0] != batchExtent)
    {
        fail(kKernel,
            "sequence lengths have shape " + shapeText(sequenceLens.shape) + "; expected ["
                + std::to_string(batchExtent) + "], one length per index of the batch axis");
    }
    std::vector<int64_t> lengths(static_cast<size_t>(batchExtent));
    for (int64_t b = 0; b < batchExtent; ++b)
    {
        int64_t const length = readInteger(sequenceLens.data, sequenceLens.type, b);
        if (length < 0 || length > sequenceExtent)
        {
            fail(kKernel,
                "sequence length " + std::to_string(length) + " of batch index " + std::to_string(b)
                    + " is outside [0, " + std::to_string(sequenceExtent) + "], the sequence axis' extent");
        }
        lengths[static_cast<size_t>(b)] = length;
    }
    return lengths;
}

} // namespace

void reverseSequence(ConstTensorView const& input, ConstTensorView const& sequenceLens, TensorView const& output,
    network::ReverseSequenceParams const& params)
{
    expectShape(output.shape, input.shape, kKernel, "output");
    if (output.type != input.type)
    {
        fail(kKernel,
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    size_t const bytes = byteSizeOf(input.type, kKernel);
    checkAxes(params, input.rank());
    auto const batchAxis = static_cast<size_t>(params.batchAxis);
    auto const sequenceAxis = static_cast<size_t>(params.sequenceAxis);
    int64_t const batchExtent = input.shape[batchAxis];
    int64_t const sequenceExtent = input.shape[sequenceAxis];
    std::vector<int64_t> const lengths = readLengths(sequenceLens, batchExtent, sequenceExtent);
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    Shape const strides = contiguousStrides(input.shape);
    int64_t const batchStride = strides[batchAxis];
    int64_t const sequenceStride = strides[sequenceAxis];
    auto const* source = static_cast<uint8_t const*>(input.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const b = i / batchStride % batchExtent;
        int64_t const t = i / sequenceStride % sequenceExtent;
        int64_t const length = lengths[static_cast<size_t>(b)];
        // Position t of a reversed prefix reads position length - 1 - t, which lies (length - 1 - 2t) steps away.
        int64_t const from = t < length ? i + (length - 1 - 2 * t) * sequenceStride : i;
        std::memcpy(destination + i * static_cast<int64_t>(bytes), source + from * static_cast<int64_t>(bytes), bytes);
    }
}

void run(network::ReverseSequenceParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    reverseSequence(in[0], in[1], out[0], p);
}

} // namespace kiln::cpu
