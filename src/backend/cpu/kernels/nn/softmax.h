// ISoftMaxLayer (and ONNX Softmax opset 13): softmax along one axis, stable against overflow by subtracting the
// axis maximum; the sum of exponentials accumulates in double. LogSoftmax is composed by the parser.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/softmax.h"

namespace kiln::cpu
{

//! Writes `output` (same shape as `input`; both floating-point). In-place use is allowed. Throws
//! std::invalid_argument unless the `axes` bitmask names exactly one axis of the input (bit i = axis i).
void runSoftmax(network::SoftMaxParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
