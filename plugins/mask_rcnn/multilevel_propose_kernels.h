// The CUDA entry point of MultilevelProposeROI_TRT (multilevel_propose_kernels.cu): each level's proposals through
// refine_device.cuh's proposal scheme, then each image's survivors of all levels ranked by score.
#pragma once

#include "box_coding.h"
#include "refine_host.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::plugins::mrcnn
{

//! One tensor of FP32 or FP16 elements.
struct FloatTensor
{
    void const* data{nullptr};
    bool half{false};
};

//! Per level: deltas [batch, count, 4], scores [batch, count]; proposals [batch, keepTopK, 4].
struct MultilevelProposeRun
{
    int32_t batch{0};
    TltPyramidAnchors anchors;
    ProposalRule rule;
    FloatTensor deltas[TltPyramidAnchors::kLevels];
    FloatTensor scores[TltPyramidAnchors::kLevels];
    void* proposals{nullptr};
    bool proposalsHalf{false};
};

size_t multilevelProposeWorkspaceSize(int32_t batch, TltPyramidAnchors const& anchors, ProposalRule const& rule);
cudaError_t launchMultilevelPropose(MultilevelProposeRun const& run, void* workspace, cudaStream_t stream);

} // namespace kiln::plugins::mrcnn
