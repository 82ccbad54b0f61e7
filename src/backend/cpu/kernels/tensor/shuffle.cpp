#include "backend/cpu/kernels/tensor/shuffle.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "shuffle";

bool isIdentity(std::vector<int32_t> const& order)
{
    for (size_t i = 0; i < order.size(); ++i)
    {
        if (order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! The first `rank` entries of a layer's permutation, which is what applies to a tensor of that rank.
std::vector<int32_t> leadingOrder(nvinfer1::Permutation const& permutation, size_t rank)
{
    if (rank > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        fail(kKernel,
            "rank " + std::to_string(rank) + " is beyond a permutation's " + std::to_string(nvinfer1::Dims::MAX_DIMS)
                + " entries");
    }
    return std::vector<int32_t>(permutation.order, permutation.order + rank);
}

} // namespace

Shape resolveReshapeDimensions(Shape const& input, Shape const& reshapeDimensions, bool zeroIsPlaceholder)
{
    Shape output = reshapeDimensions;
    int64_t inferredIndex = -1;
    bool hasZero = false;
    int64_t knownVolume = 1;
    for (size_t i = 0; i < output.size(); ++i)
    {
        int64_t& extent = output[i];
        if (extent == -1)
        {
            if (inferredIndex >= 0)
            {
                fail(kKernel, "reshape dimensions " + shapeText(reshapeDimensions) + " have more than one -1");
            }
            inferredIndex = static_cast<int64_t>(i);
            continue;
        }
        if (extent < -1)
        {
            fail(kKernel, "reshape dimension " + std::to_string(extent) + " is invalid (only -1 may be negative)");
        }
        if (extent == 0 && zeroIsPlaceholder)
        {
            if (i >= input.size())
            {
                fail(kKernel,
                    "placeholder 0 at index " + std::to_string(i) + " of " + shapeText(reshapeDimensions)
                        + " has no input dim to copy (input " + shapeText(input) + ")");
            }
            extent = input[i];
        }
        hasZero = hasZero || extent == 0;
        knownVolume *= extent;
    }
    int64_t const inputVolume = volume(input);
    if (inferredIndex >= 0)
    {
        if (hasZero)
        {
            // An extent of 0 makes the -1 ambiguous (any value gives volume 0), as ONNX's allowzero says.
            fail(kKernel, "cannot infer -1 in " + shapeText(reshapeDimensions) + " next to a zero extent");
        }
        if (inputVolume % knownVolume != 0)
        {
            fail(kKernel,
                "cannot reshape " + shapeText(input) + " to " + shapeText(reshapeDimensions) + ": volume "
                    + std::to_string(inputVolume) + " is not a multiple of " + std::to_string(knownVolume));
        }
        output[static_cast<size_t>(inferredIndex)] = inputVolume / knownVolume;
    }
    else if (knownVolume != inputVolume)
    {
        fail(kKernel,
            "cannot reshape " + shapeText(input) + " (volume " + std::to_string(inputVolume) + ") to "
                + shapeText(output) + " (volume " + std::to_string(knownVolume) + ")");
    }
    return output;
}

Shape transposeShape(Shape const& input, std::vector<int32_t> const& order)
{
    if (order.empty())
    {
        return input;
    }
    if (order.size() != input.size())
    {
        fail(kKernel,
            "permutation has " + std::to_string(order.size()) + " entries for rank " + std::to_string(input.size()));
    }
    std::vector<bool> used(input.size(), false);
    Shape output(input.size());
    for (size_t i = 0; i < order.size(); ++i)
    {
        int32_t const source = order[i];
        if (source < 0 || static_cast<size_t>(source) >= input.size() || used[static_cast<size_t>(source)])
        {
            fail(kKernel, "order is not a permutation of the input's " + std::to_string(input.size()) + " dims");
        }
        used[static_cast<size_t>(source)] = true;
        output[i] = input[static_cast<size_t>(source)];
    }
    return output;
}

namespace
{

//! The shape that `order` transposes into `transposed`.
Shape untransposeShape(Shape const& transposed, std::vector<int32_t> const& order)
{
    transposeShape(transposed, order); // checks that order is a permutation of the dims
    if (order.empty())
    {
        return transposed;
    }
    Shape original(transposed.size());
    for (size_t i = 0; i < order.size(); ++i)
    {
        original[static_cast<size_t>(order[i])] = transposed[i];
    }
    return original;
}

} // namespace

Shape shuffleOutputShape(Shape const& input, network::ShuffleParams const& params)
{
    Shape shape = transposeShape(input, leadingOrder(params.firstTranspose, input.size()));
    if (params.reshape)
    {
        shape = resolveReshapeDimensions(shape, network::dimsToVector(*params.reshape), params.zeroIsPlaceholder);
    }
    return transposeShape(shape, leadingOrder(params.secondTranspose, shape.size()));
}

void transpose(ConstTensorView const& input, TensorView const& output, std::vector<int32_t> const& order)
{
    expectShape(output.shape, transposeShape(input.shape, order), "transpose", "output");
    if (input.type != output.type)
    {
        fail("transpose",
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    size_t const bytes = byteSizeOf(input.type, "transpose");
    if (output.count() == 0)
    {
        return;
    }
    if (order.empty() || isIdentity(order))
    {
        std::memmove(output.data, input.data, static_cast<size_t>(input.count()) * bytes);
        return;
    }
    // Walk the output in order; the input offset follows through the permuted strides.
    Shape const inputStrides = contiguousStrides(input.shape);
    Shape permutedStrides(order.size());
    for (size_t i = 0; i < order.size(); ++i)
    {
        permutedStrides[i] = inputStrides[static_cast<size_t>(order[i])] * static_cast<int64_t>(bytes);
    }
    auto const* source = static_cast<uint8_t const*>(input.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    forEachIndex<1>(output.shape, {permutedStrides}, [&](std::array<int64_t, 1> const& offsets) {
        std::memcpy(destination, source + offsets[0], bytes);
        destination += bytes;
    });
}

void shuffle(ConstTensorView const& input, TensorView const& output, network::ShuffleParams const& params)
{
    std::vector<int32_t> const firstOrder = leadingOrder(params.firstTranspose, input.shape.size());
    std::vector<int32_t> const secondOrder = leadingOrder(params.secondTranspose, output.shape.size());
    Shape const afterFirst = transposeShape(input.shape, firstOrder);
    // No placeholders are left in the reshape's result, so a 0 in it is a real extent.
    Shape const beforeSecond = resolveReshapeDimensions(afterFirst, untransposeShape(output.shape, secondOrder), false);
    bool const firstMoves = !isIdentity(firstOrder);
    bool const secondMoves = !isIdentity(secondOrder);
    if (!firstMoves)
    {
        // The reshape only relabels: the second transpose (or a plain copy) reads the input directly.
        transpose(ConstTensorView(input.type, beforeSecond, input.data), output, secondOrder);
        return;
    }
    if (!secondMoves)
    {
        transpose(input, TensorView{output.type, afterFirst, output.data}, firstOrder);
        return;
    }
    size_t const bytes = byteSizeOf(input.type, kKernel);
    std::vector<uint8_t> staging(static_cast<size_t>(input.count()) * bytes);
    transpose(input, TensorView{input.type, afterFirst, staging.data()}, firstOrder);
    transpose(ConstTensorView(input.type, beforeSecond, staging.data()), output, secondOrder);
}

void run(network::ShuffleParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    shuffle(in[0], out[0], p);
}

} // namespace kiln::cpu
