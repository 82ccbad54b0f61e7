// IUnaryLayer (and ONNX Exp, Log, Sqrt, Reciprocal, Abs, Neg, Sin, ..., Ceil, Floor, Erf, Not, Sign, Round,
// IsInf, IsNaN): an element-wise function of one tensor.
//
// Types:
//   kFLOAT / kHALF / kBF16  every operation but kNOT, computed in float. kROUND rounds half to even (ONNX Round);
//                           kSIGN gives -1, 0 or 1 (NaN stays NaN); kISINF and kISNAN produce kBOOL.
//   kINT32 / kINT64 / kINT8 kABS, kNEG (both wrap: -INT_MIN is INT_MIN) and kSIGN.
//   kBOOL                   kNOT.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/unary.h"

namespace kiln::cpu
{

//! The operation on one float (kISINF / kISNAN give 1 or 0; kNOT is not a float operation and gives 0).
float applyUnary(nvinfer1::UnaryOperation op, float x);

//! x rounded to the nearest integer, ties to the even one, independent of the floating-point rounding mode.
float roundHalfToEven(float x);

//! Writes `output` (same shape as `input`, type backend::unaryOutputType: backend/shared/unary_types.h). In-place
//! use is allowed. Throws std::invalid_argument on a shape or type mismatch.
void runUnary(network::UnaryParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
