// Views: layers that only re-describe memory run nothing. A shuffle that leaves the elements where they lie in memory
// (a reshape, flatten, squeeze or unsqueeze, whose transposes move only axes of extent 1; or, in a CUDA plan, the
// channels of a channels-last tensor moved last into a linear one, or back), a stride-1 slice that keeps one
// contiguous block of its row-major input, and a gather of one constant index whose block is contiguous (`x[i]` of
// an export, every axis before the gathered one of extent 1) make their output a view: TensorRecord::viewOf names the
// tensor whose memory it is, viewOffset the element it starts at (an expression of the run's shapes, so a slice whose
// start depends on the input's shape works under every profile). A view of a view shows the first view's tensor, at the
// sum of both offsets, so chains are one step at run time.
//
// A layer becomes a view only where nothing converts on the way: the same type on both sides, each read as stored
// (row-major; a shuffle's sides also channels-last), no fused epilogue. Its output is no network output (that is
// written into the application's memory, so the copy stays) and no shape tensor; the viewed tensor is no constant's
// weights, no shape tensor, and neither side has a data-dependent extent. A network input may be viewed: the view's
// address follows the application's.
//
// The memory planner gives views no memory and keeps the viewed tensor's bytes until the last reader of any view of
// it has run. Kiln has no in-place layers (no layer's output shares bytes with its inputs, builder/memory_plan.h),
// so nothing writes a viewed tensor while a view of it is read. The execution context computes each view's address
// when shapes or addresses change and skips its layer (runtime/prepared_layer.h).
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::builder
{

//! Marks the layers of `model` (after the backend's passes, before memory planning) whose output can be a view of
//! their input, adding the expressions of the views' offsets and bounds to its table. Returns how many it marked.
size_t markViews(plan::PlanModel& model);

} // namespace kiln::builder
