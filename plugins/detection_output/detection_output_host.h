// NMS_TRT and NMSDynamic_TRT on the host: decoding here, the NMS of BatchedNMS (batched_nms/batched_nms_host.h).
#pragma once

#include "batched_nms/batched_nms_math.h"
#include "common/plugin_tensors.h"
#include "detection_output_params.h"
#include "ssd_box_decode.h"

namespace kiln::plugins
{

//! The NMS stage's configuration: NVIDIA runs BatchedNMS's NMS with Caffe semantics, and clips output boxes to
//! [0, 1] whatever isNormalized says.
BatchedNmsConfig ssdNmsConfigOf(DetectionOutputParams const& params);

//! Decodes, suppresses and writes detections [B, 1, keepTopK, 7] and keepCount [B, 1, 1, 1] (int32 values in a
//! tensor typed FP32, as NVIDIA's).
void runDetectionOutputOnHost(DetectionOutputParams const& params, SsdShape const& shape, PluginTensors const& io);

} // namespace kiln::plugins
