#include "backend/cpu/kernels/tensor/select.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "select";

} // namespace

Shape selectOutputShape(Shape const& condition, Shape const& thenInput, Shape const& elseInput)
{
    return broadcastShapes(broadcastShapes(condition, thenInput, kKernel), elseInput, kKernel);
}

void select(ConstTensorView const& condition, ConstTensorView const& thenInput, ConstTensorView const& elseInput,
    TensorView const& output)
{
    expectShape(output.shape, selectOutputShape(condition.shape, thenInput.shape, elseInput.shape), kKernel, "output");
    if (condition.type != DataType::kBOOL)
    {
        fail(kKernel, std::string("condition must be BOOL, not ") + dataTypeName(condition.type));
    }
    if (thenInput.type != output.type || elseInput.type != output.type)
    {
        fail(kKernel, "then, else and output must have the same type");
    }
    size_t const bytes = byteSizeOf(output.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    auto const* flags = static_cast<uint8_t const*>(condition.data);
    auto const* thenBytes = static_cast<uint8_t const*>(thenInput.data);
    auto const* elseBytes = static_cast<uint8_t const*>(elseInput.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    int64_t const elementBytes = static_cast<int64_t>(bytes);
    forEachIndex<3>(output.shape,
        {broadcastStrides(condition.shape, output.shape, kKernel),
            broadcastStrides(thenInput.shape, output.shape, kKernel),
            broadcastStrides(elseInput.shape, output.shape, kKernel)},
        [&](std::array<int64_t, 3> const& offsets) {
            uint8_t const* source = flags[offsets[0]] != 0 ? thenBytes + offsets[1] * elementBytes
                                                           : elseBytes + offsets[2] * elementBytes;
            std::memcpy(destination, source, bytes);
            destination += bytes;
        });
}

void run(network::SelectParams const& /*params*/, LayerInputs const& in, LayerOutputs const& out)
{
    select(in[0], in[1], in[2], out[0]);
}

} // namespace kiln::cpu
