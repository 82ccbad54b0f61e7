// ICumulativeLayer (ONNX CumSum).
//
// Running sum along an axis (TensorRT passes it as a scalar input tensor). exclusive leaves the current
// element out of its own sum (the first is 0); reverse runs from the end of the axis.
// FP32/FP16/BF16 accumulate in double and round on store; INT32/INT64 are exact (wrapping on overflow).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/cumulative.h"

#include <cstdint>

namespace kiln::cpu
{

//! `axis` is the value of the layer's input 1, read at run time; negative counts from the end.
void cumulative(
    ConstTensorView const& input, TensorView const& output, network::CumulativeParams const& params, int32_t axis);

} // namespace kiln::cpu
