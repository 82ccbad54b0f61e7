// The CPU backend's entry point for every built-in layer kind: one overload of cpu::run per parameter struct of
// network/layers/layer_kinds.h, each defined beside the reference kernel it runs (backend/cpu/kernels/). A kind
// added to that list without its overload here fails to link, so the reference covers every kind.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/layer_kinds.h"

#include <vector>

namespace kiln::cpu
{

//! A layer's tensors as its kernel reads and writes them: inputs in order (an optional input not given is a view
//! without data), then outputs, shaped by inference.
using LayerInputs = std::vector<ConstTensorView>;
using LayerOutputs = std::vector<TensorView>;

#define KILN_DECLARE_CPU_RUN(Params)                                                                                   \
    void run(network::Params const& params, LayerInputs const& inputs, LayerOutputs const& outputs);
KILN_FOR_EACH_LAYER_KIND(KILN_DECLARE_CPU_RUN)
#undef KILN_DECLARE_CPU_RUN

} // namespace kiln::cpu
