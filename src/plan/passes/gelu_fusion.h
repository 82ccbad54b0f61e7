// GELU as PyTorch exports it to ONNX below opset 20 (transformers' BERT among others): x * 0.5 * (1 + erf(x / sqrt(2)))
// in five element-wise layers becomes one activation layer (kGELU_ERF), and its tanh approximation as GPT-2's export
// spells it, x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) in eight layers, one kGELU_TANH. A backend runs
// the activation in one pass over memory, or fuses it into the layer before it (a linear layer's epilogue).
#pragma once

#include "plan/plan_model.h"

namespace kiln::plan
{

//! Rewrites `model`'s layer list in place; runs before the epilogue fusions, so that they see the activation. The
//! factors may come in any of the orders (x * (1 + f)) * 0.5, (x * 0.5) * (1 + f) and x * ((1 + f) * 0.5) (f: the
//! erf or the tanh), the division by sqrt(2) may be a product by its inverse, and each product by a constant and the
//! sum x + 0.044715 * x^3 may take their operands in either order. A GELU is fused only where nothing else reads its
//! intermediate tensors and its layers compute in one precision on one type; the scalar constants it read go where
//! nothing else reads them.
void fuseGelu(PlanModel& model);

} // namespace kiln::plan
