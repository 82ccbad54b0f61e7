#include "backend/cpu/kernels/tensor/concatenation.h"

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

constexpr char const* kKernel = "concatenation";

} // namespace

Shape concatenationOutputShape(std::span<Shape const> inputs, network::ConcatenationParams const& params)
{
    if (inputs.empty())
    {
        fail(kKernel, "needs at least one input");
    }
    Shape output = inputs[0];
    int32_t const axis = normalizeAxis(params.axis, static_cast<int64_t>(output.size()), kKernel);
    output[static_cast<size_t>(axis)] = 0;
    for (Shape const& shape : inputs)
    {
        bool compatible = shape.size() == output.size();
        for (size_t d = 0; compatible && d < shape.size(); ++d)
        {
            compatible = static_cast<int32_t>(d) == axis || shape[d] == output[d];
        }
        if (!compatible)
        {
            fail(kKernel,
                "input shapes " + shapeText(inputs[0]) + " and " + shapeText(shape) + " differ outside axis "
                    + std::to_string(axis));
        }
        output[static_cast<size_t>(axis)] += shape[static_cast<size_t>(axis)];
    }
    return output;
}

void concatenation(
    std::span<ConstTensorView const> inputs, TensorView const& output, network::ConcatenationParams const& params)
{
    std::vector<Shape> shapes;
    shapes.reserve(inputs.size());
    for (ConstTensorView const& input : inputs)
    {
        if (input.type != output.type)
        {
            fail(kKernel,
                std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
        }
        shapes.push_back(input.shape);
    }
    expectShape(output.shape, concatenationOutputShape(shapes, params), kKernel, "output");
    size_t const bytes = byteSizeOf(output.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    // Each input contributes one contiguous block per index of the dims before the axis.
    int32_t const axis = normalizeAxis(params.axis, output.rank(), kKernel);
    int64_t outerCount = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outerCount *= output.shape[static_cast<size_t>(d)];
    }
    int64_t const outputRowBytes = output.count() / outerCount * static_cast<int64_t>(bytes);
    auto* destinationBase = static_cast<uint8_t*>(output.data);
    for (ConstTensorView const& input : inputs)
    {
        int64_t const inputRowBytes = outerCount == 0 ? 0 : input.count() / outerCount * static_cast<int64_t>(bytes);
        if (inputRowBytes == 0)
        {
            continue;
        }
        auto const* source = static_cast<uint8_t const*>(input.data);
        for (int64_t outer = 0; outer < outerCount; ++outer)
        {
            std::memcpy(destinationBase + outer * outputRowBytes, source + outer * inputRowBytes,
                static_cast<size_t>(inputRowBytes));
        }
        destinationBase += inputRowBytes;
    }
}

void run(network::ConcatenationParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    concatenation(in, out[0], p);
}

} // namespace kiln::cpu
