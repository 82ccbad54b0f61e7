// INormalizationLayer (and ONNX LayerNormalization, InstanceNormalization, GroupNormalization):
//   output = (input - mean) / sqrt(variance + epsilon) * scale + bias
// with mean and (biased) variance taken over the axes in the `axes` bitmask. With nbGroups > 1 (group
// normalization) axis 1 holds the channels, split into nbGroups consecutive groups: statistics are taken per
// group, over the group's channels and the `axes` (axis 1 in `axes` is then ignored).
// scale and bias broadcast to the input (equal rank, 1-extents): [1, C, 1, ...] per channel for instance and group
// normalization, [1, ..., normalized extents] for layer normalization. Group normalization also accepts
// [1, nbGroups, 1, ...] (one weight per group, as ONNX GroupNormalization-18 has). Statistics accumulate in double.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/normalization.h"

namespace kiln::cpu
{

//! Writes `output` (same shape as `input`; all tensors floating-point). Throws std::invalid_argument on an axes
//! mask outside the rank, channels not divisible by nbGroups, or scale/bias that do not broadcast.
//! In-place use (output aliasing input) is allowed.
void runNormalization(network::NormalizationParams const& params, ConstTensorView const& input,
    ConstTensorView const& scale, ConstTensorView const& bias, TensorView const& output);

} // namespace kiln::cpu
