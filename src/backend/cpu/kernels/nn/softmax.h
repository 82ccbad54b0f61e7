// ISoftMaxLayer (and ONNX Softmax opset 13): softmax along one axis, stable against overflow by subtracting the
// axis maximum; the sum of exponentials accumulates in double. LogSoftmax is composed by the parser.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>

namespace kiln::cpu
{

//! TensorRT's ISoftMaxLayer parameters: `axes` is a bitmask with exactly one bit set (bit i = axis i).
struct SoftmaxParams
{
    uint32_t axes{1U};
};

//! Writes `output` (same shape as `input`; both floating-point). In-place use is allowed. Throws
//! std::invalid_argument unless `axes` names exactly one axis of the input.
void runSoftmax(SoftmaxParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
