// ISelectLayer (ONNX Where): output = condition ? thenInput : elseInput, element by element, with numpy
// broadcasting of all three. The condition is BOOL (any nonzero byte is true); then/else/output share one
// type of any byte-addressable size, copied as bytes.
#pragma once

#include "core/tensor_view.h"

namespace kiln::cpu
{

Shape selectOutputShape(Shape const& condition, Shape const& thenInput, Shape const& elseInput);

void select(ConstTensorView const& condition, ConstTensorView const& thenInput, ConstTensorView const& elseInput,
    TensorView const& output);

} // namespace kiln::cpu
