// IActivationLayer (and ONNX Relu, Sigmoid, Tanh, LeakyRelu, Elu, Selu, Softsign, Softplus, Clip, HardSigmoid,
// ThresholdedRelu, Gelu): an element-wise function with TensorRT's alpha and beta.
//   kRELU              max(x, 0)
//   kSIGMOID           1 / (1 + exp(-x))
//   kTANH              tanh(x)
//   kLEAKY_RELU        x >= 0 ? x : alpha * x
//   kELU               x >= 0 ? x : alpha * (exp(x) - 1)
//   kSELU              x > 0 ? beta * x : beta * alpha * (exp(x) - 1)
//   kSOFTSIGN          x / (1 + |x|)
//   kSOFTPLUS          alpha * log(exp(beta * x) + 1)          (evaluated without overflow)
//   kCLIP              max(alpha, min(beta, x))
//   kHARD_SIGMOID      max(0, min(1, alpha * x + beta))
//   kSCALED_TANH       alpha * tanh(beta * x)
//   kTHRESHOLDED_RELU  x > alpha ? x : 0
//   kGELU_ERF          0.5 * x * (1 + erf(x / sqrt(2)))
//   kGELU_TANH         0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
#pragma once

#include "core/tensor_view.h"
#include "network/layers/activation.h"

namespace kiln::cpu
{

//! The activation of one value, in float (double inside where cancellation would hurt).
float activate(network::ActivationParams const& params, float x);

//! Writes `output` (same shape as `input`; both floating-point, any of kFLOAT/kHALF/kBF16). In-place use
//! (output aliasing input) is allowed. Throws std::invalid_argument on a shape or type mismatch.
void runActivation(network::ActivationParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
