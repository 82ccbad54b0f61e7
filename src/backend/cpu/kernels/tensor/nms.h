// INMSLayer (ONNX NonMaxSuppression): the reference the CUDA kernel is tested against.
//
// boxes are [batch, boxes, 4] (every class's) or [batch, boxes, classes, 4] (per class), scores [batch, boxes,
// classes], both FLOAT, HALF or BF16, read as float. For each batch item:
// 1. The candidates are the (class, box) pairs whose score exceeds `scoreThreshold` (a NaN score never does).
// 2. When there are more than params.topKBoxLimit, only that many are kept: the highest scores, of any class; equal
//    scores keep the lower class, then the lower box index.
// 3. Each class's candidates, in order of decreasing score (equal scores, -0.0 and 0.0 among them: lower box index
//    first), are selected greedily: a candidate is selected unless a box of its class selected before suppresses it
//    (backend/shared/nms_box.h: overlapping, positive areas, IoU above `iouThreshold`), until `maxOutputBoxesPerClass`
//    are (none when it is 0 or less). Coordinates are read per params.boxFormat (nms_box.h's makeBox).
// `selected` rows are (batch, class, box) triples, by batch item, then class, then order of selection: ONNX's order
// (TensorRT's documents decreasing score across a batch item's classes). `selected` is given with its capacity,
// [upper bound, 3] of INT32 or INT64; its first count rows are written, and count to `count`, a 0-D INT32 or INT64.
// A count beyond the capacity, or an index or count its type cannot hold, is an error, as are shapes that disagree.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/nms.h"

namespace kiln::cpu
{

struct NmsLimits
{
    int64_t maxOutputBoxesPerClass{0};
    float iouThreshold{0.0F};
    float scoreThreshold{0.0F};
};

void nms(ConstTensorView const& boxes, ConstTensorView const& scores, NmsLimits const& limits,
    network::NMSParams const& params, TensorView const& selected, TensorView const& count);

} // namespace kiln::cpu
