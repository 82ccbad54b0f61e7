// IScaleLayer (and batch normalization at inference, folded by the parser): output = (input * scale + shift)^power.
// Each of shift, scale and power is a weight list that may be empty (count 0), meaning shift 0, scale 1 and no
// power (power 1). Which weight an element uses depends on the mode:
//   kUNIFORM      one weight for the whole tensor
//   kCHANNEL      one weight per index along channelAxis
//   kELEMENTWISE  one weight per element of the axes from channelAxis to the last (shared by the leading axes)
#pragma once

#include "core/tensor_view.h"
#include "network/layers/scale.h"

namespace kiln::cpu
{

//! How many weights a non-empty shift / scale / power must hold for an input of `inputShape`; throws
//! std::invalid_argument when channelAxis is outside the input's rank.
int64_t scaleWeightCount(network::ScaleParams const& params, Shape const& inputShape);

//! Writes `output` (same shape as `input`; both floating-point) with the layer's weights, which must be
//! floating-point and hold 0 or scaleWeightCount values each. Computed in float. Throws std::invalid_argument on
//! inconsistent counts, shapes or types. In-place use is allowed.
void runScale(network::ScaleParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
