// TensorRT's convolution fusions, for CUDA plans: a convolution followed by a ReLU, or by the
// addition of a same-shaped tensor and a ReLU (a ResNet block's end), becomes one layer that
// cuDNN runs as one kernel, saving a pass over memory for each layer it absorbs.
#pragma once

#include "plan/plan_model.h"

namespace kiln::cuda
{

//! Rewrites `model`'s layer list in place. Runs after every layer is recorded and before memory planning; the
//! absorbed layers' intermediate tensors are then used by no layer. A chain is fused only where nothing else reads
//! its intermediate tensors and every layer in it computes in the same precision on the same types.
void fuseConvolutionEpilogues(plan::PlanModel& model);

} // namespace kiln::cuda
