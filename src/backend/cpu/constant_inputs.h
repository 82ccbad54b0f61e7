// Inputs whose values the plan fixes: a constant layer's weights, reshaped or not, as ONNX's MatMul and Gemm import
// a linear layer's weights. The CPU executor offers them to the fast kernels when a context is made, so that a kernel
// lays them out once rather than reading, at every run, what the shuffles that reshape them copy; layers whose every
// reader took what they make are then not run at all.
#pragma once

#include "core/tensor_view.h"
#include "plan/plan_model.h"

#include <vector>

namespace kiln::cpu
{

//! By tensor: the values it holds at every run, viewing the plan's weights, where a constant layer makes it directly or
//! through shuffles that only reshape (the elements stay in order); views without data elsewhere.
std::vector<ConstTensorView> constantValues(plan::PlanModel const& model);

//! By layer: whether a run may skip it, because it makes constant values (`values`, from constantValues) that only
//! inputs a kernel took read (`taken`: by layer, by input), directly or through other layers skipped; never a network
//! output, nor a tensor the execution context reads itself (a condition, a size).
std::vector<bool> unneededLayers(plan::PlanModel const& model, std::vector<ConstTensorView> const& values,
    std::vector<std::vector<bool>> const& taken);

} // namespace kiln::cpu
