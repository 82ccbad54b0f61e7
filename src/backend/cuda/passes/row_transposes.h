// A transpose that only reorders rows (it moves leading axes and keeps the last in place) commutes with the layers
// that treat every row alike: a product by constant weights, a bias added to every row, a reshape that keeps rows
// whole. Where such a chain joins it to another transpose, or to the output of a fused attention, the two reorders
// become one, and the row transpose's copy is gone. PyTorch's nn.MultiheadAttention with batch_first (torchvision's
// ViT) puts one on each side of its attention: [N, L, E] -> [L, N, E] before the input projection, and back after the
// output projection. Folded, the input projection reads [N, L, E] and the transpose that splits its result into
// query, keys and values takes the reorder; the output projection reads the attention's output stored [N, L, H, D],
// which the attention writes as well as [L, N, H, D].
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cuda
{

//! Rewrites `model`'s layer list in place; runs after the attention fusion. A transpose (no reshape, no shape input,
//! one type, row-major, no extent of 1 among the axes it moves) whose last axis stays last is folded into:
//!  - the transpose or fused attention that writes the chain's first tensor, where the transpose reads the chain's
//!    last, or
//!  - the transpose that reads the chain's last tensor, where the transpose writes the chain's first,
//! through a chain of layers that each read the one before alone: shuffles that only reshape and keep rows whole,
//! products whose first operand is the chain's and second a constant with extents of 1 before its last two, element-
//! wise operations with a constant of extents 1 along the rows, quantizations and dequantizations by one scale or
//! along an axis within a row, activations and unary operations. Every tensor of the chain between the two ends
//! holds its rows along the transpose's axes (extents of 1 aside) or along one axis; the ends along the transpose's
//! axes. Returns how many transposes it folded.
size_t foldRowTransposes(plan::PlanModel& model);

} // namespace kiln::cuda
