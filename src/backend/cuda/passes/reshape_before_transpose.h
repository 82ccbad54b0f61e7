// A reshape that splits one axis of a transpose's output runs before the transpose instead, splitting the axis the
// transpose took it from. PyTorch's nn.MultiheadAttention (torchvision's ViT) moves the heads of [L, N * H, D] to the
// front and only then splits them, `q.view(L, N * H, D).transpose(0, 1).view(N, H, L, D)`: the attention fusion
// (attention_fusion.h) absorbs transposes into the operands it reads, but not a reshape after one. Swapped, the
// reshape [L, N * H, D] -> [L, N, H, D] keeps every element where it lies (a view, builder/view_layers.h), and the
// transpose to [N, H, L, D] that follows it is one the fusion absorbs. Elsewhere the swap moves the same elements.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cuda
{

//! Rewrites `model`'s layer list in place; runs before the attention fusion. Swaps a shuffle that only transposes (no
//! reshape, no shape input) with the shuffle that alone reads its output and only reshapes it (by its parameters or
//! a shape input), where that reshape splits one axis into several and keeps every other axis's extent, converts
//! nothing (the transpose may: the reshape then converts in its place), and neither the application nor a debug
//! listener sees the tensor between them. The swapped reshape states its extents as constants, copied (0) and at most
//! one inferred (-1): a split whose extents need more is left as it is. Returns how many it swapped.
size_t moveSplitsBeforeTransposes(plan::PlanModel& model);

} // namespace kiln::cuda
