// Constant folding: a layer that reads only constants computes the same values at every inference, so the builder
// computes them once, with the CPU reference kernels, and the plan holds them as a constant layer instead (as
// TensorRT folds such subgraphs when it builds). Real exports are full of them: a Reshape or Unsqueeze of a scalar
// before an element-wise layer, a Cast or Transpose of weights, a Concat or Gather of shape values. Each one folded
// is a kernel launch and its host time saved on every inference, on either backend.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::builder
{

//! What foldConstants did.
struct FoldingResult
{
    size_t folded{0};  //!< layers replaced by constants
    size_t removed{0}; //!< constants and other pure layers that nothing read any more, removed
};

//! Whether the layer is of a kind folded, as its description says (LayerParams::foldsWhenConstant): built-in layers
//! that compute the same values from the same inputs every time, that exports put around constants (shape
//! arithmetic, reshapes and casts of weights, scalars broadcast into element-wise layers), and whose CPU reference is
//! cheap at build time. Not folded: plugins (their own code, which the application expects to run), random fills (a
//! new draw at every inference), layers whose output sizes depend on the data (NonZero, NMS) or that drive the
//! execution context (conditional outputs), and compute-heavy kinds (convolution, matrix multiply, normalization,
//! ...), which rarely read only constants and whose constant weights the backends lay out themselves.
bool foldableKind(plan::LayerRecord const& layer);

//! Replaces, in plan order (so that chains fold), every layer of an allowed kind (foldableKind)
//! whose inputs are all constants' outputs, or whose output is a shape tensor whose every value no run changes (an
//! extent no profile changes, or one every profile pins to one value: min == max), and whose outputs have shapes no
//! run changes (static, or pinned so), by a constant layer named
//! "folded: <its name>" holding what the CPU reference computes, in the types the plan stores its outputs in (the
//! precision the builder chose included). Outputs keep their tensors: a network output stays the named output. Then
//! removes the constants, and the layers of the kinds it folds, that no layer reads and that make no network output
//! (a Shape layer whose every use folded, for one). Runs on the plan as recorded,
//! before the backend's passes (no fused epilogues, every tensor row-major). A layer whose kernel rejects its
//! constant inputs is left to fail at run time, as it would without folding.
FoldingResult foldConstants(plan::PlanModel& model);

} // namespace kiln::builder
