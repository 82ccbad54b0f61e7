// Slice parameters known at build time: a slice whose start or stride comes from a shape tensor whose values no run
// changes (plan::valuesNoRunChanges: constants, or arithmetic on extents every profile pins; the ONNX parser gives
// every Slice and Split its bounds as tensors) takes those values as its parameters and no longer reads the tensor. A
// backend then sees the slice's geometry while it prepares the layer: the CUDA backend copies whole runs of the input
// where the slice allows it, instead of reading its start and stride on the device for every element.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::builder
{

//! Rewrites every such slice of `model` in place; the tensors it no longer reads stay for constant folding's removal
//! of unread layers. Returns how many slices it changed.
size_t fixSliceParameters(plan::PlanModel& model);

} // namespace kiln::builder
