// Products of one input merged into one, as TensorRT's horizontal fusion does. A transformer's query, key and value
// projections each multiply the same activations by a weight matrix of their own. At the sizes of a sequence or two,
// each of those GEMMs leaves most of a large GPU idle. One strided-batched GEMM over the stacked weight matrices
// fills it, and it reads the input once.
//
// The merged product writes the members' results one after another. Each member's output then becomes a slice of
// its block, reshaped back to the member's own shape. Both layers re-describe memory only, so the builder makes them
// views (builder/view_layers.h): they run nothing, and the layers that read the members' outputs stay as they were.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cuda
{

//! Merges the matrix multiplies of `model` that read one tensor, untransposed, as their first input, and a constant
//! of one shape as their second (the weights; any batch axes of extent 1), with the same operations, precision,
//! types and fused activation. Fused biases may differ: a member without one adds zeros. Each group of two or more
//! becomes, where its first member ran:
//! - a shuffle of the shared input x to [1, x's extents...];
//! - a constant holding the members' weights stacked along a new first axis, [g, weights' extents...];
//! - one product of the two, [g, output's extents...], whose bias has one row per member (plan::Epilogue::bias);
//! - per member, a slice of its block and a shuffle to the member's output shape, which write the member's output.
//! Run after the fusions that give products their epilogues and before views are marked. Returns how many products
//! were merged into others.
size_t mergeProductsOfOneInput(plan::PlanModel& model);

} // namespace kiln::cuda
