// The shape checks of NMS_TRT and NMSDynamic_TRT, the same at build time (extents -1 where unknown) and at run time.
#pragma once

#include "detection_output_params.h"
#include "ssd_box_decode.h"

#include <cstdint>
#include <vector>

namespace kiln::plugins
{

//! Which images' priors prior data holds.
enum class PriorSharing
{
    kFIRST_IMAGE,     //!< NMS_TRT with isBatchAgnostic 1: every image uses the first image's priors
    kEVERY_IMAGE,     //!< NMS_TRT with isBatchAgnostic 0: each image its own; prior data has the batch's extent
    kEVERY_OR_SHARED, //!< NMSDynamic_TRT: each image its own, or one set (batch 1) for all
};

//! The run's shape from the three inputs' extents, in the plugin's input order, batch axis first (-1 where not
//! known yet; the result's fields are then -1 too). Throws PluginError naming `plugin` where the tensors do not fit
//! the fields or `sharing`.
SsdShape ssdShapeOf(char const* plugin, DetectionOutputParams const& params,
    std::vector<std::vector<int64_t>> const& extents, PriorSharing sharing);

} // namespace kiln::plugins
