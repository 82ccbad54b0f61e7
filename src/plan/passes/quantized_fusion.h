// TensorRT's explicit quantization fusion: in a Q/DQ network, a convolution that reads a dequantized INT8 tensor
// (per-tensor scale) with weights that are exactly INT8 values times one scale per output map becomes one
// QuantizedConvolution layer (network/fused/quantized_convolution.h) that reads the INT8 tensor itself, together with
// what follows it: a residual addition (of an FP32 tensor, or of a dequantized INT8 one, read as INT8), an activation
// (self-gated as SiLU and hard-swish, x * f(x), where the network multiplies its input by it) and a quantization to
// INT8 (per-tensor scale), each where present. Without the trailing quantization the layer
// writes FP32. The propagation of Q/DQ across data-movement layers (quantization_propagation.h) runs before it, so
// that a DQ or Q that a reshape, transpose or max pooling separated from the convolution is next to it.
//
// It fuses only what computes as the layers did: the layers compute in FP32 on FP32 tensors, scales are constants
// and zero points zero, the weights' INT8 values give them back bit for bit (int8_weights.h), nothing else reads an
// intermediate tensor and no intermediate tensor is observed (a network output or a debug tensor). A dequantization
// that other layers read too stays for them. Each backend says which fused layers its kernels run.
#pragma once

#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct QuantizedFusionRules
{
    //! Whether the backend runs this QuantizedConvolution record with its INT8 kernels (the pass asks with the longest
    //! chain first, the residual read as INT8 before FP32, and fuses the first it accepts).
    std::function<bool(PlanModel const&, LayerRecord const&)> runsQuantized;
    //! Whether the backend's quantized kernel applies this activation.
    std::function<bool(network::ActivationParams const&)> fusesActivation;
    //! Whether it applies this activation self-gated, x * f(x) (QuantizedConvolutionParams::selfGated); empty: none.
    //! The network writes it as the activation and a product of its input by its output.
    std::function<bool(network::ActivationParams const&)> fusesSelfGated{};
};

//! Rewrites `model`'s layer list in place; returns how many convolutions it fused.
size_t fuseQuantizedConvolutions(PlanModel& model, QuantizedFusionRules const& rules);

} // namespace kiln::plan
