// Channel shuffles as gathers. ShuffleNet's exports (and other networks that mix groups of channels) permute a
// tensor's channels with a chain of shuffles: a reshape that splits the channels into [groups, channels per group], a
// transpose of those two axes and a reshape back. Each is a pass over memory, and none stays inside a channels-last
// (kHWC) region, where the permutation moves each pixel's channels and nothing else. A gather of axis 1 by constant
// indices computes the same in one pass, and a backend may run it on channels-last tensors as they are stored. The
// slices that split the shuffled channels (ShuffleNet's next unit) gather their channels from the chain's input
// themselves: a split shuffle is then one pass for each part.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::plan
{

//! Replaces each chain of shuffles that only permutes axis 1 of a 4-D tensor (its output has the input's shape, and
//! element [n, c, h, w] of it is element [n, perm[c], h, w] of the input) by one kDEFAULT gather of axis 1, whose
//! indices (INT32, perm) a new constant layer holds. A chain is shuffles each read only by the next, none moving axis
//! 0, their tensors' extents past it build-time constants (axis 0, the batch, may be known only at run time), with no
//! conversion of type in them; the identity permutation is left alone (a reshape there is a view). The constants that
//! only the chain read (its reshapes' dimensions) go with it. Each slice of the chain's output along axis 1 alone
//! (start and stride set as parameters, inside the axis) becomes a gather of the chain's input by the channels it
//! reads, and the gather of the whole permutation stays only where something else reads it. Returns how many chains
//! became gathers.
size_t gatherChannelPermutations(PlanModel& model);

} // namespace kiln::plan
