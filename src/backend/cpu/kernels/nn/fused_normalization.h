// A fused normalization (network::FusedNormalizationParams: LayerNorm or RMSNorm over the trailing axes, with the
// residual sum before it) on the reference kernels. The sums are computed as the element-wise layers they replace
// compute them: in float, each rounded to the type x is read in (so the second output, and the statistics, see the
// values the unfused sum wrote). Statistics accumulate in double, as the Normalization reference's do, in two passes
// (mean, then squared deviations) where the layer is centered.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/fused_normalization.h"

#include <vector>

namespace kiln::cpu
{

//! Writes outputs[0] (y) and, where given, outputs[1] (the sum) from the five inputs (x, preBias, residual, scale,
//! bias; an absent one is a view without data), all floating point. Throws std::invalid_argument for a missing x, an
//! axis count outside the rank, outputs of different shapes, an x or residual that does not broadcast into their rows,
//! or a weight that is neither a row nor one value.
void runFusedNormalization(network::FusedNormalizationParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln::cpu
