// An element-wise operation with a constant that reads a transpose runs before the transpose instead, on the
// transpose's input, with the constant's axes transposed back. PyTorch models that move the channels last for a
// LayerNorm and a linear layer move them back and then scale by a per-channel constant (ConvNeXt's layer scale,
// x.permute(0, 3, 1, 2) * gamma[1, C, 1, 1]) before the residual sum. Moved before the transpose, the scaling
// broadcasts along the innermost axis of the linear data, and the transpose's reader is the residual sum itself, a
// layer a channels-last region continues through: the transpose then writes the region's format and becomes a view
// (backend/cuda/passes/channels_last.h, builder/view_layers.h).
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cuda
{

//! Rewrites `model`'s layer list in place; runs before the fusions, so that they see the new order. Moves an
//! element-wise layer of two inputs before the shuffle that writes one of them where: the shuffle only transposes
//! (no reshape, no second transpose, no shape input), nothing else reads its output and the application does not
//! see it; the other input is a fixed constant (not refittable) of the same rank, with at most one axis longer than 1
//! (so that its values keep their order), which the layer gets a copy of where other layers read it too; and the
//! layer reads and writes one type. Returns how many it moved.
size_t moveConstantOperationsBeforeTransposes(plan::PlanModel& model);

} // namespace kiln::cuda
