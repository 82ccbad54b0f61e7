// Batch normalization folded into the convolution before it. ONNX BatchNormalization imports as a per-channel
// IScaleLayer, (x * scale + shift); after a convolution it is a change of the convolution's weights:
// w'[k] = w[k] * scale[k] and b'[k] = b[k] * scale[k] + shift[k]. The folded convolution makes one pass over
// memory instead of two, and its epilogue can then take the activation that followed the normalization.
#pragma once

#include "plan/plan_model.h"

namespace kiln::cpu
{

//! Folds into each FP32 convolution the per-channel or uniform scale layer (without a power) that alone reads its
//! output, in place. Runs before the convolution fusions.
void foldScalesIntoConvolutions(plan::PlanModel& model);

} // namespace kiln::cpu
