// ITopKLayer (ONNX TopK; ArgMax/ArgMin are k = 1 with the index output).
//
// Along the single axis set in reduceAxes, picks the k largest (kMAX) or smallest (kMIN) elements,
// sorted best first. Equal values come out lower index first (as ONNX specifies). NaN ranks above every
// number (first for kMAX, last for kMIN). Any k up to the axis extent: no 3840 cap. O(n log k) per row.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

#include <cstdint>

namespace kiln::cpu
{

struct TopK
{
    nvinfer1::TopKOperation operation{nvinfer1::TopKOperation::kMAX};
    int64_t k{1};
    uint32_t reduceAxes{0}; //!< exactly one bit set
};

//! The shape of both outputs: the input's, with the reduced axis of extent k.
Shape topKOutputShape(Shape const& input, TopK const& params);

//! values: the input's type (FP32, FP16, BF16, INT32, INT64), copied exactly. indices: INT32 or INT64.
void topK(ConstTensorView const& input, TensorView const& values, TensorView const& indices, TopK const& params);

} // namespace kiln::cpu
