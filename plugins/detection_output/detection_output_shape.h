// The shape checks of NMS_TRT and NMSDynamic_TRT, the same at build time (extents -1 where unknown) and at run time.
#pragma once

#include "detection_output_params.h"
#include "ssd_box_decode.h"

#include <cstdint>
#include <vector>

namespace kiln::plugins
{

//! The run's shape from the three inputs' extents, in the plugin's input order, batch axis first (-1 where not
//! known yet; the result's fields are then -1 too). `perImagePriors`: prior data with the batch's extent belongs
//! to each image (NMSDynamic_TRT, and NMS_TRT with isBatchAgnostic 0); prior data of batch 1 is always shared.
//! Throws PluginError naming `plugin` where the tensors do not fit the fields.
SsdShape ssdShapeOf(char const* plugin, DetectionOutputParams const& params,
    std::vector<std::vector<int64_t>> const& extents, bool perImagePriors);

} // namespace kiln::plugins
