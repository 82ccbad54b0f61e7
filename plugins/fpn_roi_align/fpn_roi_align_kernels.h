// The CUDA side of PyramidROIAlign_TRT and MultilevelCropAndResize_TRT (fpn_roi_align_kernels.cu).
#pragma once

#include "fpn_sampling.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins::fpn
{

//! One run's device tensors: ROIs [batch, roiCount, 4], maps [batch, channels, h, w] per level, out
//! [batch, roiCount, channels, pooled, pooled].
struct DeviceTensors
{
    void const* rois{nullptr};
    bool roisHalf{false};
    void const* maps[kMaxLevels]{};
    bool mapsHalf{false}; //!< the maps and the output
    int32_t dims[2 * kMaxLevels]{};
    void* out{nullptr};
    int32_t batch{0};
    int32_t roiCount{0};
    int32_t channels{0};
};

cudaError_t launchFpnRoiAlign(DeviceTensors const& tensors, RoiAlignRule const& rule, cudaStream_t stream);

} // namespace kiln::plugins::fpn
