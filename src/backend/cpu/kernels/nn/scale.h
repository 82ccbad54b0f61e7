// IScaleLayer (and batch normalization at inference, folded by the parser): output = (input * scale + shift)^power.
// Each of shift, scale and power is a weight list that may be empty (count 0), meaning shift 0, scale 1 and no
// power (power 1). Which weight an element uses depends on the mode:
//   kUNIFORM      one weight for the whole tensor
//   kCHANNEL      one weight per index along channelAxis
//   kELEMENTWISE  one weight per element of the axes from channelAxis to the last (shared by the leading axes)
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

struct ScaleParams
{
    nvinfer1::ScaleMode mode{nvinfer1::ScaleMode::kUNIFORM};
    int32_t channelAxis{1};
};

//! How many weights a non-empty shift / scale / power must hold for an input of `inputShape`; throws
//! std::invalid_argument when channelAxis is outside the input's rank.
int64_t scaleWeightCount(ScaleParams const& params, Shape const& inputShape);

//! Writes `output` (same shape as `input`; both floating-point). Weights are floating-point of any shape; only
//! their element count matters (0 or scaleWeightCount). Computed in float. Throws std::invalid_argument on
//! inconsistent counts, shapes or types. In-place use is allowed.
void runScale(ScaleParams const& params, ConstTensorView const& input, ConstTensorView const& shift,
    ConstTensorView const& scale, ConstTensorView const& power, TensorView const& output);

} // namespace kiln::cpu
