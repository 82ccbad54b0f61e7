#include "backend/cpu/kernels/tensor/broadcast.h"

#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "broadcastTo";

} // namespace

Shape expandOutputShape(Shape const& input, Shape const& requested)
{
    return broadcastShapes(input, requested, "expand");
}

void broadcastTo(ConstTensorView const& input, TensorView const& output)
{
    if (input.type != output.type)
    {
        fail(kKernel, std::string("input is ") + typeName(input.type) + " but output is " + typeName(output.type));
    }
    size_t const bytes = byteSizeOf(output.type, kKernel);
    Shape const strides = broadcastStrides(input.shape, output.shape, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    auto const* source = static_cast<uint8_t const*>(input.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    int64_t const elementBytes = static_cast<int64_t>(bytes);
    forEachIndex<1>(output.shape, {strides},
        [&](std::array<int64_t, 1> const& offsets)
        {
            std::memcpy(destination, source + offsets[0] * elementBytes, bytes);
            destination += bytes;
        });
}

} // namespace kiln::cpu
