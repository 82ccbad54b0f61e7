// Repeated layers: two layers of a pure kind (builder/constant_folding.h's foldableKind, and small constants) with the
// same parameters reading the same tensors compute the same values, so the plan keeps the first and the second's
// readers read its outputs (common subexpression elimination, as TensorRT's builder does). Exports repeat such
// layers per block: each attention layer of BERT's export has its own copies of the same scalars and of the same
// reshapes of them, and its own Select of the same mask by them; all of it is built once.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::builder
{

//! Merges, in plan order (so that chains of repeated layers merge), every layer of a pure kind, without guards,
//! into an earlier one of the same type, parameters (compared as the plan writes them), inputs, precision and I/O
//! types and formats, whose outputs have the same types and formats; constants merge where they hold the same values
//! (at most kMaxMergedConstantElements, not refittable), shape tensors among them. A layer stays where one of its
//! outputs is observed (a network output or a debug tensor), a size tensor (a symbol's) or a guard's condition. Runs on
//! the plan as recorded, before the backend's passes (no fused epilogues). Returns how many layers it removed.
size_t mergeRepeatedLayers(plan::PlanModel& model);

//! The most elements a constant may hold to be compared with the others.
constexpr int64_t kMaxMergedConstantElements = 4096;

} // namespace kiln::builder
