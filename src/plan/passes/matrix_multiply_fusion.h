// TensorRT's fully connected fusions: a matrix multiply followed by the addition of a constant row (a bias, as
// ONNX's Gemm imports with its C input, or MatMul then Add), by an activation, or by both, becomes one layer whose
// epilogue does both, saving a pass over memory for each layer it absorbs. Each backend says which chains its
// kernels run as one.
#pragma once

#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct MatrixMultiplyFusionRules
{
    //! Whether the backend's fused kernel runs this product of matrices (no vector operands; it has no epilogue yet).
    std::function<bool(PlanModel const&, LayerRecord const&)> fusesInto;
    //! Whether it applies this activation.
    std::function<bool(network::ActivationParams const&)> fusesActivation;
};

//! Rewrites `model`'s layer list in place. Runs after every layer is recorded and before memory planning; the
//! absorbed layers' intermediate tensors are then used by no layer. A chain is fused only where nothing else reads
//! its intermediate tensors and every layer in it computes in the same precision on the same types. The layers
//! that made the bias (a constant, and shuffles of it) stay where something else still reads them.
void fuseMatrixMultiplyEpilogues(PlanModel& model, MatrixMultiplyFusionRules const& rules);

} // namespace kiln::plan
