#include "backend/cpu/kernels/tensor/one_hot.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include "core/checked_size.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "oneHot";

} // namespace

Shape oneHotOutputShape(Shape const& indices, int64_t depth, network::OneHotParams const& params)
{
    if (depth < 0)
    {
        fail(kKernel, "depth must not be negative");
    }
    int64_t const outputRank = static_cast<int64_t>(indices.size()) + 1;
    int32_t const axis = normalizeAxis(params.axis, outputRank, kKernel);
    Shape output = indices;
    output.insert(output.begin() + axis, depth);
    // The depth is data: an output whose size wraps would be a small buffer that the loops below write past.
    std::optional<int64_t> const count = checkedElementCount(output);
    if (!count || !checkedByteSize(*count, sizeof(int64_t)))
    {
        fail(kKernel,
            "depth " + std::to_string(depth) + " makes the output " + shapeText(output)
                + " larger than a 64-bit size counts");
    }
    return output;
}

void oneHot(ConstTensorView const& indices, ConstTensorView const& values, int64_t depth, TensorView const& output,
    network::OneHotParams const& params)
{
    expectShape(output.shape, oneHotOutputShape(indices.shape, depth, params), kKernel, "output");
    if (!isIndexType(indices.type))
    {
        fail(kKernel, std::string("indices must be INT32 or INT64, not ") + dataTypeName(indices.type));
    }
    if (values.count() != 2 || values.type != output.type)
    {
        fail(kKernel, "values must hold [off, on] in the output's type");
    }
    size_t const bytes = byteSizeOf(output.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    // Output layout: [outer][depth][inner], where outer x inner enumerate the indices.
    int32_t const axis = normalizeAxis(params.axis, output.rank(), kKernel);
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= indices.shape[static_cast<size_t>(d)];
    }
    int64_t const inner = indices.count() / outer;
    auto const* off = static_cast<uint8_t const*>(values.data);
    auto const* on = off + bytes;
    auto* destination = static_cast<uint8_t*>(output.data);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t j = 0; j < depth; ++j)
        {
            for (int64_t i = 0; i < inner; ++i)
            {
                int64_t index = readInteger(indices.data, indices.type, o * inner + i);
                index = index < 0 ? index + depth : index;
                std::memcpy(destination, index == j ? on : off, bytes);
                destination += bytes;
            }
        }
    }
}

void run(network::OneHotParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    int64_t const depth = tensor_detail::readInteger(in[2].data, in[2].type, 0);
    oneHot(in[0], in[1], depth, out[0], p);
}

} // namespace kiln::cpu
