// Group normalization of one group as PyTorch exports it (PoolFormer's, and any GroupNorm(1, C)): the [N, C, H, W]
// tensor reshaped to [N, 1, C * H * W], an instance normalization of that one row per sample with a scale of 1 and a
// bias of 0, and a reshape back (the per-channel affine step follows as element-wise layers). The two reshapes move
// nothing in a row-major plan, but inside a channels-last (kHWC) region each leaves it: the first copies the tensor to
// row-major, and everything after the normalization up to the next convolution runs row-major. A normalization over
// axes 1 to 3 of the 4-D tensor itself computes the same, and since each sample's elements lie together in either
// format and a scale and bias of one value apply to each alike, it runs on the tensor as it is stored. Both backends
// rewrite so before they choose their formats: the CUDA backend's channels-last regions and the CPU fast path's.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::plan
{

//! Replaces each reshape -> normalization -> reshape that normalizes each sample of a 4-D tensor X whole by one
//! normalization of X over axes 1, 2 and 3 (no groups), writing the second reshape's output. The first reshape must
//! make X [N, 1, K] or [N, K] (K the elements of a sample, N X's batch), the normalization cover the last axis alone,
//! its scale and bias hold one value each (fixed constants, moved to shape [1, 1, 1, 1]), and the second reshape give
//! X's shape back; nothing else may read the tensors in between, and no layer of the three may convert a type.
//! Returns how many it replaced.
size_t normalizeSamplesInPlace(plan::PlanModel& model);

//! Whether normalization `layer` normalizes each sample of a 4-D tensor whole (axes 1 to 3, no groups) with a scale
//! and a bias of one value each: it then computes the same on channels-last data as on row-major data.
bool normalizesWholeSamples(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! The same with a scale and a bias of one value or one per channel each ([1, C, 1, 1]): a kernel that reads them
//! per channel as the data lies computes it on channels-last data too (the CPU fast path's).
bool normalizesSamplesPerChannel(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! Whether constant extents `dims`, aligned to the right of a 4-D tensor's of `channels` channels, hold one value or
//! one per channel.
bool holdsOneValueOrOnePerChannel(std::vector<int64_t> const& dims, int64_t channels);

} // namespace kiln::plan
