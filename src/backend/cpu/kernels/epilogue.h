// The reference of a fused epilogue (plan::Epilogue): what a backend's fusion folded into a layer, applied after the
// layer's own kernel, so that fused layers have a CPU reference as every layer does.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "plan/plan_model.h"

namespace kiln::cpu
{

//! Rewrites `output` (floating point), which the layer's kernel wrote, as activation(output + bias + residual), each
//! part where `epilogue` has it: the bias along the last axis, the residual from the layer's last input; a self-gated
//! activation multiplies its argument by its result, each rounded as the unfused product's operands are. Throws
//! std::invalid_argument when the bias or the residual does not fit the output. In FP16 or BF16 the layer's result
//! is rounded before the epilogue adds to it, as in the network before fusion; a fused GPU kernel rounds once, so
//! the two differ by the rounding FP16 comparisons already allow.
void applyEpilogue(plan::Epilogue const& epilogue, LayerInputs const& inputs, TensorView const& output);

} // namespace kiln::cpu
