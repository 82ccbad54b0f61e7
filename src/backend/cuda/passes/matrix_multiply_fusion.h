// TensorRT's fully connected fusions, for CUDA plans: a 2-D matrix multiply followed by the
// addition of a constant row (a bias, as ONNX's Gemm imports with its C input), by a ReLU, or
// by both, becomes one layer that cuBLASLt runs as one kernel with an epilogue, saving a pass
// over memory for each layer it absorbs.
#pragma once

#include "plan/plan_model.h"

namespace kiln::cuda
{

//! Rewrites `model`'s layer list in place. Runs after every layer is recorded and before memory planning; the
//! absorbed layers' intermediate tensors are then used by no layer. A chain is fused only where nothing else reads
//! its intermediate tensors and every layer in it computes in the same precision on the same types. The layers
//! that made the bias (a constant, and shuffles of it) stay where something else still reads them.
void fuseMatrixMultiplyEpilogues(plan::PlanModel& model);

} // namespace kiln::cuda
