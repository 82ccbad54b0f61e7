// Runs one layer on the CPU backend: maps the layer kind's parameters onto its
// reference kernel.
#pragma once

#include "core/tensor_view.h"
#include "network/layer.h"

#include <string>
#include <vector>

namespace kiln::cpu
{

//! False with error set when the layer kind has no CPU kernel or the kernel rejects its input.
bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error);

} // namespace kiln::cpu
