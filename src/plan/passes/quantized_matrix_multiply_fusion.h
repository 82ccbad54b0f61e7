// TensorRT's explicit quantization fusion for fully connected layers: in a Q/DQ network, a matrix multiply that reads
// a dequantized INT8 or FP8 tensor (per-tensor scale) on its left and constant weights on its right that are exactly
// values of the same type times one scale per output column (or one for all) becomes one QuantizedMatrixMultiply
// layer (network/fused/quantized_matrix_multiply.h) that reads the quantized tensor itself, together with what
// follows it: the addition of a constant row (a bias), a product by positive constants, one for all columns or one per
// column (folded into the columns' scales and the bias), an activation and a quantization into the same type
// (per-tensor scale), each where present.
// Without the trailing quantization the layer writes FP16 in an FP16 chain where the backend runs that (CUDA does),
// else FP32; it computes its epilogue in FP32. This is how Model Optimizer's INT8 BERT and FP8 ViT state their
// projections: DQ(Q(x)) x DQ(quantized weights, per column) -> Add(bias) [-> GELU] [-> Q], and Model Optimizer's INT8
// Whisper its queries: -> Add(bias) -> Mul(head_dim^-1/2); ConvNeXt's blocks end in -> Add(bias) -> Mul(layer scale,
// per channel) -> Q once the CUDA passes have moved the product before the transpose back to channels-first.
//
// It fuses only what computes as the layers did: the layers compute in one floating-point type (quantized_patterns.h:
// FP32, FP16 or BF16), scales are constants and zero points zero, the weights' quantized values give them back bit
// for bit as the chain's type holds them (int8_weights.h), nothing else reads an intermediate tensor and no
// intermediate tensor is observed (a network output or a debug tensor). A dequantization that other layers read too
// stays for them until none does. Products of two activations (attention's) stay as written. Each backend says which
// fused layers its kernels run: the CPU backend runs the INT8 ones (its FP8 layers stay unfused, the exact reference),
// the CUDA backend both.
#pragma once

#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct QuantizedMatrixMultiplyFusionRules
{
    //! Whether the backend runs this QuantizedMatrixMultiply record with its quantized kernels (the pass asks with the
    //! longest chain first and fuses the first it accepts).
    std::function<bool(PlanModel const&, LayerRecord const&)> runsQuantized;
    //! Whether the backend's quantized kernel applies this activation.
    std::function<bool(network::ActivationParams const&)> fusesActivation;
};

//! Rewrites `model`'s layer list in place; returns how many matrix multiplies it fused.
size_t fuseQuantizedMatrixMultiplies(PlanModel& model, QuantizedMatrixMultiplyFusionRules const& rules);

} // namespace kiln::plan
