// Runs one layer of a plan on the CPU backend: its kind's reference kernel (layer_kernels.h), then the epilogue a
// fusion folded into it, if any.
#pragma once

#include "core/tensor_view.h"
#include "plan/plan_model.h"

#include <string>
#include <vector>

namespace kiln::cpu
{

//! False with error set when the kernel rejects its input.
bool runLayer(plan::LayerRecord const& record, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error);

} // namespace kiln::cpu
