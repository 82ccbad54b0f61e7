// ICumulativeLayer (ONNX CumSum).
//
// Running sum along `axis` (TensorRT passes it as a scalar input tensor). exclusive leaves the current
// element out of its own sum (the first is 0); reverse runs from the end of the axis.
// FP32/FP16/BF16 accumulate in double and round on store; INT32/INT64 are exact (wrapping on overflow).
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

#include <cstdint>

namespace kiln::cpu
{

struct Cumulative
{
    nvinfer1::CumulativeOperation operation{nvinfer1::CumulativeOperation::kSUM};
    bool exclusive{false};
    bool reverse{false};
    int32_t axis{0}; //!< negative counts from the end
};

void cumulative(ConstTensorView const& input, TensorView const& output, Cumulative const& params);

} // namespace kiln::cpu
