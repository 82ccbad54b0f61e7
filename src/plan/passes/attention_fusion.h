// Scaled dot-product attention fused: MatMul(query, keys), Mul or Div by constant scalars, an Add of a mask,
// SoftMax over the last axis, optionally Where(IsNaN(p), 0, p), then MatMul(p, values) become one layer
// (network::AttentionParams), as PyTorch's exports of BERT, ViT, GPT-2 and Whisper spell attention. Constant
// scalars that multiply the query or the keys before the first product join the scale. Quantized exports' Q -> DQ
// pairs of one scale (INT8 or FP8) on the query, keys and values, after the scores' scaling and before the second
// product join as the layer's roundings; a scaling before an operand's pair then multiplies that operand. Operands
// split off one transpose's output (Transpose -> Split -> Squeeze, timm's `qkv.unbind(0)`) are read in place from the
// transpose's input where the attention reads all of its slices (AttentionPick). The backend's kernel then never
// writes the scores or the probabilities to memory, nor copies the heads apart.
#pragma once

#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct AttentionFusionRules
{
    //! Whether the backend runs attention in `type` over these depths (query/keys, values), build-time constants,
    //! with roundings (AttentionParams::rounds) where `rounds`.
    std::function<bool(nvinfer1::DataType type, int64_t depth, int64_t valueDepth, bool rounds)> runs;
};

//! Rewrites `model`'s layer list in place; runs before the point-wise chains, whose layers it would otherwise not
//! see. Fuses only where every absorbed tensor is read inside the pattern alone (not a network output), every layer
//! computes in one precision on one floating-point type with row-major tensors, and the query, keys and values
//! share their leading extents.
void fuseAttention(PlanModel& model, AttentionFusionRules const& rules);

} // namespace kiln::plan
