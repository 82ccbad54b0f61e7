// IReduceLayer (ONNX ReduceSum/Prod/Max/Min/Mean; the parser builds the others from these).
//
// Bit i of reduceAxes reduces dim i. With keepDimensions the reduced dims stay as extent 1, otherwise
// they are removed. Reducing an empty set gives the operation's identity: sum 0, prod 1, max -inf (the
// type's lowest integer), min +inf (the type's highest integer), avg NaN (0 for integers).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/reduce.h"

namespace kiln::cpu
{

Shape reduceOutputShape(Shape const& input, network::ReduceParams const& params);

//! FP32/FP16/BF16 (accumulated in double; max/min propagate NaN) and INT32/INT64 (exact, wrapping on
//! overflow; avg truncates toward zero). Input and output types are the same.
void reduce(ConstTensorView const& input, TensorView const& output, network::ReduceParams const& params);

} // namespace kiln::cpu
