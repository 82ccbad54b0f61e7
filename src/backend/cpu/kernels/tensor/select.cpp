#include "backend/cpu/kernels/tensor/select.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <array>
#include <cstring>
#include <string>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "select";

//! The condition's flags, the two branches' bytes, and the element strides of each along the output's axes (0 where it
//! broadcasts along one).
struct Operands
{
    uint8_t const* flags;
    uint8_t const* thenBytes;
    uint8_t const* elseBytes;
    std::array<Shape, 3> strides;
};

//! The output, an innermost row at a time, elements of kBytes: a choice and a copy of a size known at compile time per
//! element (a copy of a run-time size is a call per element; BERT's exports select over every attention weight, to turn
//! NaN into zero).
template <size_t kBytes>
void selectRows(Operands const& in, Shape const& shape, uint8_t* destination)
{
    Shape const outer(shape.begin(), shape.end() - 1);
    int64_t const columns = shape.back();
    std::array<Shape, 3> outerStrides;
    std::array<int64_t, 3> columnStrides{};
    for (size_t k = 0; k < 3; ++k)
    {
        outerStrides[k] = Shape(in.strides[k].begin(), in.strides[k].end() - 1);
        columnStrides[k] = in.strides[k].back();
    }
    forEachIndex<3>(outer, outerStrides, [&](std::array<int64_t, 3> const& offsets) {
        for (int64_t column = 0; column < columns; ++column)
        {
            bool const chosen = in.flags[offsets[0] + column * columnStrides[0]] != 0;
            uint8_t const* source = chosen ? in.thenBytes + (offsets[1] + column * columnStrides[1]) * kBytes
                                           : in.elseBytes + (offsets[2] + column * columnStrides[2]) * kBytes;
            std::memcpy(destination, source, kBytes);
            destination += kBytes;
        }
    });
}

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
    // A scalar output (and its scalar inputs) is one row of one element.
    Shape const shape = output.shape.empty() ? Shape{1} : output.shape;
    auto const stridesOf = [&](Shape const& input) {
        return output.shape.empty() ? Shape{0} : broadcastStrides(input, output.shape, kKernel);
    };
    Operands const rows{static_cast<uint8_t const*>(condition.data), static_cast<uint8_t const*>(thenInput.data),
        static_cast<uint8_t const*>(elseInput.data),
        {stridesOf(condition.shape), stridesOf(thenInput.shape), stridesOf(elseInput.shape)}};
    auto* const destination = static_cast<uint8_t*>(output.data);
    switch (bytes)
    {
    case 1: selectRows<1>(rows, shape, destination); break;
    case 2: selectRows<2>(rows, shape, destination); break;
    case 4: selectRows<4>(rows, shape, destination); break;
    case 8: selectRows<8>(rows, shape, destination); break;
    default: fail(kKernel, "elements of " + std::to_string(bytes) + " bytes are not supported");
    }
}

void run(network::SelectParams const& /*params*/, LayerInputs const& in, LayerOutputs const& out)
{
    select(in[0], in[1], in[2], out[0]);
}

} // namespace kiln::cpu
