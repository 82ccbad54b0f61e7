// TensorRT's explicit quantization fusion for fully connected layers: in a Q/DQ network, a matrix multiply that reads
// a dequantized INT8 tensor (per-tensor scale) on its left and constant weights on its right that are exactly INT8
// values times one scale per output column (or one for all) becomes one QuantizedMatrixMultiply layer
// (network/fused/quantized_matrix_multiply.h) that reads the INT8 tensor itself, together with what follows it: the
// addition of a constant row (a bias), an activation and a quantization to INT8 (per-tensor scale), each where
// present. Without the trailing quantization the layer writes FP32. This is how Model Optimizer's INT8 BERT states its
// projections: DQ(Q(x)) x DQ(INT8 weights, per column) -> Add(bias) [-> GELU -> Q].
//
// It fuses only what computes as the layers did: the layers compute in FP32 on FP32 tensors, scales are constants and
// zero points zero, the weights' INT8 values give them back bit for bit (int8_weights.h), nothing else reads an
// intermediate tensor and no intermediate tensor is observed (a network output or a debug tensor). A dequantization
// that other layers read too stays for them until none does. Products of two activations (attention's) and FP8
// products stay as written. Each backend says which fused layers its kernels run.
#pragma once

#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct QuantizedMatrixMultiplyFusionRules
{
    //! Whether the backend runs this QuantizedMatrixMultiply record with its INT8 kernels (the pass asks with the
    //! longest chain first and fuses the first it accepts).
    std::function<bool(PlanModel const&, LayerRecord const&)> runsQuantized;
    //! Whether the backend's quantized kernel applies this activation.
    std::function<bool(network::ActivationParams const&)> fusesActivation;
};

//! Rewrites `model`'s layer list in place; returns how many matrix multiplies it fused.
size_t fuseQuantizedMatrixMultiplies(PlanModel& model, QuantizedMatrixMultiplyFusionRules const& rules);

} // namespace kiln::plan
