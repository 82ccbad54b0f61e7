// ILRNLayer (and ONNX LRN of odd size): local response normalization across channels, the third axis from the end:
//   output[..., c, h, w] = input[..., c, h, w] / (k + alpha / window * sum of input[..., j, h, w]^2)^beta
// with j from c - (window - 1) / 2 to c + (window - 1) / 2, the channels beyond either end left out of the sum (not
// counted as zeros in the divisor: alpha is always divided by the whole window). The sum, the power and the quotient
// are computed in double and rounded once on store. Values are never refused: a negative base (alpha < 0) to a
// fractional beta gives NaN, as pow does. The output is not the input: each element reads its neighbours' channels.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/lrn.h"

namespace kiln::cpu
{

//! Writes `output` (the input's shape; both FLOAT, HALF or BF16). Throws std::invalid_argument for another shape or
//! type, a rank below 3, or parameters outside TensorRT's ranges (network::LRNParams::parameterError).
void runLrn(network::LRNParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
