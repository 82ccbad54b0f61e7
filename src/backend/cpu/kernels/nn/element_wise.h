// IElementWiseLayer (and ONNX Add, Mul, Max, Min, Sub, Div, Pow, And, Or, Xor, Equal, Greater, Less): a binary
// operation over two tensors of equal rank with numpy-style 1-extent broadcasting.
//
// Types (both inputs share one type):
//   kFLOAT / kHALF / kBF16  arithmetic in float; kFLOOR_DIV is floor(a / b); kMAX/kMIN propagate NaN.
//   kINT32 / kINT64 / kINT8 arithmetic wraps (two's complement); kDIV truncates toward zero; kFLOOR_DIV rounds
//                           toward negative infinity; kPOW with a negative exponent gives the truncated
//                           quotient (0 unless the base is 1 or -1). Integer division by zero gives 0.
//   kBOOL                   kAND, kOR, kXOR and the comparisons.
// kEQUAL, kGREATER and kLESS produce kBOOL; kAND/kOR/kXOR take and produce kBOOL; every other operation produces
// the input type.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/elementwise.h"

namespace kiln::cpu
{

//! The broadcast shape of the two inputs; throws std::invalid_argument when they do not broadcast.
Shape elementWiseOutputShape(Shape const& first, Shape const& second);

//! The output type for inputs of `inputType`; throws std::invalid_argument when the operation does not take it.
nvinfer1::DataType elementWiseOutputType(nvinfer1::ElementWiseOperation op, nvinfer1::DataType inputType);

//! The arithmetic `op` of two floating-point values, in float so that FP32 results are what a float unit gives
//! (comparisons and logic give 0).
float floatArithmetic(nvinfer1::ElementWiseOperation op, float a, float b);

//! Writes `output` (shape elementWiseOutputShape, type elementWiseOutputType). Throws std::invalid_argument on
//! mismatched types or shapes. The output may alias an input of the same shape.
void runElementWise(network::ElementWiseParams const& params, ConstTensorView const& first,
    ConstTensorView const& second, TensorView const& output);

} // namespace kiln::cpu
