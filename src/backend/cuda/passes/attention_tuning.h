// The builder's choice between cuDNN's fused attention and Kiln's attention kernel for each attention layer cuDNN may
// run (FP16, no mask, roundings or NaN guard: libraries/cudnn/attention_layer.h): both run on the GPU at the layer's
// shapes in the first profile's kOPT (or the timing cache answers), and the faster is stored in the plan. Neither
// wins everywhere: on an H200, cuDNN's took 17% less time over Whisper's 1500 tokens and up to 5% more over ViT's 197.
// Untimed (no GPU here, and no cache entry), the layer keeps the rule by key count.
#pragma once

#include "backend/cuda/passes/timed_tuning.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "core/tensor_view.h"
#include "network/fused/attention.h"
#include "plan/plan_model.h"

#include <array>
#include <functional>
#include <string>

namespace kiln::cuda
{

//! The shapes an attention layer reads and writes: query, keys, values, output (no mask: a masked layer is not timed).
using AttentionOperandShapes = std::array<Shape, 4>;

//! The builder's stopwatch for attention (AttentionTimer in tuning/attention_timing.h on the GPU; tests stand in).
class AttentionAlgorithmTimer
{
public:
    struct Result
    {
        AlgorithmChoice choice; //!< AlgorithmChoice::graphEngine(0): cuDNN's; kilnKernel(): Kiln's
        float milliseconds{0};
    };
    virtual ~AttentionAlgorithmTimer() = default;
    //! The faster of cuDNN's fused attention and Kiln's kernel for the FP16 layer `params` describes, on operands of
    //! `shapes`: Kiln's where cuDNN does not take them. Throws std::runtime_error saying why neither can be timed.
    virtual Result fastest(network::AttentionParams const& params, AttentionOperandShapes const& shapes) = 0;
};

using AttentionTuning = TimedTuning<AttentionAlgorithmTimer>;

//! Whether cuDNN's attention may run attention layer `record`, by what the plan says of it: FP16, no mask, no roundings
//! and no NaN guard (its shapes and strides are the timer's, and at run time the layer's, to judge).
bool cudnnMayRunAttention(plan::LayerRecord const& record);

//! Sets the backend choice of every attention layer of `model` cuDNN may run; `optShape(t)` is tensor t's shape at
//! the first profile's kOPT, for the first `networkTensors` tensors (a layer reading or writing another keeps the
//! rule). A layer that cannot be timed keeps the rule too. Returns false with `error` naming the layer only when the
//! cache lacks its configuration under errorOnCacheMiss.
bool tuneAttention(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape, int32_t networkTensors,
    AttentionTuning const& tuning, std::string& error);

} // namespace kiln::cuda
