// GELU as PyTorch exports it to ONNX below opset 20 (transformers' BERT among others): x * 0.5 * (1 + erf(x / sqrt(2)))
// in five element-wise layers becomes one activation layer (kGELU_ERF), which a backend runs in one pass over memory
// instead of five, or fuses into the layer before it (a linear layer's epilogue).
#pragma once

#include "plan/plan_model.h"

namespace kiln::plan
{

//! Rewrites `model`'s layer list in place; runs before the epilogue fusions, so that they see the activation. The
//! factors may come in any of the orders (x * (1 + erf)) * 0.5, (x * 0.5) * (1 + erf) and x * ((1 + erf) * 0.5),
//! and the division by sqrt(2) may be a product by its inverse. A GELU is fused only where nothing else reads its
//! intermediate tensors and its layers compute in one precision on one type; the scalar constants it read go where
//! nothing else reads them.
void fuseGelu(PlanModel& model);

} // namespace kiln::plan
