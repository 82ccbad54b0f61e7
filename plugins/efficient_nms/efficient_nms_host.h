// EfficientNMS on the host: the selection both variants write out (efficient_nms_plugin.cpp).
#pragma once

#include "efficient_nms_math.h"

#include <vector>

namespace kiln::plugins
{

//! One kept detection.
struct NmsDetection
{
    int32_t anchor;
    int32_t cls;
    float rawScore; //!< before score_activation's sigmoid
    NmsBox box;     //!< corners, decoded where anchors are given
};

//! Each image's kept detections in output order (at most config.maxOutputBoxes). Candidates are the scores >=
//! the threshold outside the background class, taken by descending score; equal scores keep the order of their
//! flat index anchor * classes + class. Inputs are FP32 copies of the plugin's tensors; anchors may be null.
std::vector<std::vector<NmsDetection>> efficientNmsOnHost(EfficientNmsConfig const& config,
    EfficientNmsShape const& shape, std::vector<float> const& boxes, std::vector<float> const& scores,
    std::vector<float> const* anchors);

} // namespace kiln::plugins
