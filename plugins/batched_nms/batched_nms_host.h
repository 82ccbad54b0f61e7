// BatchedNMS on the host (batched_nms_plugin.cpp writes the result out).
#pragma once

#include "batched_nms_math.h"

#include <vector>

namespace kiln::plugins
{

struct BatchedDetection
{
    int32_t box;
    int32_t cls;
    float score;
};

//! Each image's detections in output order (at most keepTopK): per class, the scores > scoreThreshold (stable
//! sort, descending; the first topK) go through greedy NMS (suppressed when IoU > iouThreshold); the survivors of
//! all classes are then sorted by descending score, equal scores keeping class order, then their order in the class.
std::vector<std::vector<BatchedDetection>> batchedNmsOnHost(BatchedNmsConfig const& config,
    BatchedNmsShape const& shape, std::vector<float> const& boxes, std::vector<float> const& scores);

} // namespace kiln::plugins
