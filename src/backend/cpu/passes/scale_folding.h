// Batch normalization folded into the convolution before it. ONNX BatchNormalization imports as a per-channel
// IScaleLayer, (x * scale + shift); after a convolution it is a change of the convolution's weights:
// w'[k] = w[k] * scale[k] and b'[k] = b[k] * scale[k] + shift[k]. The folded convolution makes one pass over
// memory instead of two, and its epilogue can then take the activation that followed the normalization. The same
// for a frozen batch normalization written as an element-wise product and sum by per-channel constants.
#pragma once

#include "plan/plan_model.h"

namespace kiln::cpu
{

//! Folds into each FP32 convolution the per-channel or uniform scale layer (without a power) that alone reads its
//! output, in place; then the element-wise product and/or sum by constants of one value or one per output map that
//! alone read it (channel_affine.h: a frozen batch normalization as exports write it). Runs before the convolution
//! fusions.
void foldScalesIntoConvolutions(plan::PlanModel& model);

} // namespace kiln::cpu
