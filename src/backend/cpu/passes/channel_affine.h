// The per-channel affine step that exports write as element-wise layers after a layer: x * factor[c] + shift[c] by
// constants of one value or one per channel (axis 1: [C, 1, 1] or [1, C, 1, 1]), either or both. A frozen batch
// normalization after a convolution (transformers' ResNet backbones, DETR's), GroupNorm(1, C)'s weights after a
// normalization of whole samples (PoolFormer's). The CPU passes fold it into the layer before it.
#pragma once

#include "plan/plan_graph.h"

#include <optional>
#include <vector>

namespace kiln::cpu
{

struct ChannelAffine
{
    std::vector<size_t> layers;               //!< the product and/or the sum, in order
    std::optional<std::vector<float>> factor; //!< the product's, per channel
    std::optional<std::vector<float>> shift;  //!< the sum's, per channel, after the factor
};

//! Whether `layer` computes in FP32 (or has no precision of its own) and reads and writes only FP32 tensors.
bool float32Throughout(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! The element-wise product, then sum, by such constants that alone read layer `l`'s output (and the product's), each
//! FP32 throughout, unguarded, with no epilogue, writing its input's shape; none where there is neither. `edit`'s
//! readers, producers and removed layers are the model's as the pass has changed them so far.
std::optional<ChannelAffine> channelAffineAfter(
    plan::PlanModel const& model, plan::LayerRewrite const& edit, size_t l, int64_t channels);

//! Removes `affine`'s layers through `edit`, with the constants only they read (given first or second).
void removeChannelAffine(plan::PlanModel const& model, plan::LayerRewrite& edit, ChannelAffine const& affine);

//! The values of FP32 tensor `t`, one per channel, where a fixed constant holds one value or one per channel.
std::optional<std::vector<float>> perChannelConstant(
    plan::PlanModel const& model, plan::LayerRewrite const& edit, int32_t t, int64_t channels);

} // namespace kiln::cpu
