// The builder's choice between cuDNN's graph engines (libraries/cudnn/quantized_convolution_graph.h) and Kiln's own
// kernels (kernels/convolution/quantized_convolution.h) for each INT8 convolution a graph may run: both run on the
// GPU at the layer's input shape in the first profile's kOPT (or the timing cache answers), and the faster is stored
// in the plan, cuDNN's as the rank of its engine. Neither wins everywhere: cuDNN's runtime-compiled engines are faster
// on ResNet-50's 3x3 and 1x1 reductions at batch 256, Kiln's on stems of few channels, which a graph does not take.
// Untimed (no GPU here, and no cache entry), Kiln's kernels run the layer.
#pragma once

#include "backend/cuda/passes/timed_tuning.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "core/tensor_view.h"
#include "network/fused/quantized_convolution.h"
#include "plan/plan_model.h"

#include <functional>
#include <string>

namespace kiln::cuda
{

//! The builder's stopwatch for INT8 convolutions (QuantizedConvolutionTimer in tuning/quantized_convolution_timing.h
//! on the GPU; tests stand in).
class QuantizedConvolutionAlgorithmTimer
{
public:
    struct Result
    {
        AlgorithmChoice choice; //!< graphEngine(rank): cuDNN's engine of that rank; kilnKernel(): Kiln's kernels
        float milliseconds{0};
    };
    virtual ~QuantizedConvolutionAlgorithmTimer() = default;
    //! The fastest way to run channels-last INT8 convolution `params` on an input of `inputShape`, which a cuDNN graph
    //! takes (QuantizedConvolutionGraph::takes). Throws std::runtime_error saying why it cannot be timed.
    virtual Result fastest(network::QuantizedConvolutionParams const& params, Shape const& inputShape) = 0;
};

using QuantizedConvolutionTuning = TimedTuning<QuantizedConvolutionAlgorithmTimer>;

//! Sets the backend choice of every INT8 convolution of `model` a cuDNN graph may run; `optShape(t)` is tensor t's
//! shape at the first profile's kOPT, for the first `networkTensors` tensors; a layer reading a tensor a pass added
//! is timed at the shape of a network tensor of the same dimensions, and keeps Kiln's kernels where there is none. A
//! layer that cannot be timed keeps Kiln's kernels too. Returns false with `error` naming the layer only when the
//! cache lacks its configuration under errorOnCacheMiss.
bool tuneQuantizedConvolutions(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape,
    int32_t networkTensors, QuantizedConvolutionTuning const& tuning, std::string& error);

} // namespace kiln::cuda
