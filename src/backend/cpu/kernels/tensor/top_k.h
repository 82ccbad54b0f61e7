// ITopKLayer (ONNX TopK; ArgMax/ArgMin are k = 1 with the index output).
//
// Along the single axis set in reduceAxes, picks the k largest (kMAX) or smallest (kMIN) elements,
// sorted best first. Equal values come out lower index first (as ONNX specifies). NaN ranks above every
// number (first for kMAX, last for kMIN). Any k up to the axis extent: no 3840 cap. O(n log k) per row.
// `k` is the layer's k as it runs: params.k, or the value of input 1 when the layer has one (read at run time).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/top_k.h"

#include <cstdint>

namespace kiln::cpu
{

//! The shape of both outputs: the input's, with the reduced axis of extent k.
Shape topKOutputShape(Shape const& input, network::TopKParams const& params, int64_t k);

//! values: the input's type (FP32, FP16, BF16, INT32, INT64), copied exactly. indices: INT32 or INT64.
void topK(ConstTensorView const& input, TensorView const& values, TensorView const& indices,
    network::TopKParams const& params, int64_t k);

} // namespace kiln::cpu
