#include "backend/cuda/passes/quantized_convolution_tuning.h"

#include "backend/cuda/libraries/cudnn/quantized_convolution_graph.h"
#include "core/dims_text.h"
#include "core/logging.h"
#include "plan/plan_graph.h"

#include <exception>
#include <optional>
#include <sstream>

namespace kiln::cuda
{
namespace
{

//! Everything that decides which is faster (not the weights' or scales' values).
std::string describe(network::QuantizedConvolutionParams const& params, Shape const& input)
{
    std::ostringstream text;
    text << "quantized convolution input " << shapeSpec(input) << " maps " << params.nbOutputMaps << " kernel "
         << dimsSpec(params.kernelSize) << " stride " << dimsSpec(params.stride) << " pre "
         << dimsSpec(params.prePadding) << " post " << dimsSpec(params.postPadding) << " dilation "
         << dimsSpec(params.dilation) << " bias " << !params.bias.empty() << " residual " << params.addsResidual
         << " activation " << (params.activates ? static_cast<int32_t>(params.activation) : -1) << " gated "
         << params.selfGated;
    return text.str();
}

//! What the timing of `record` found: its cached or timed choice; none where neither answers, the layer cannot be
//! timed, or the cache holds a tactic no INT8 convolution runs (a damaged cache). False with `error` on a cache miss
//! under errorOnCacheMiss.
bool timedChoice(plan::LayerRecord const& record, network::QuantizedConvolutionParams const& params, Shape const& input,
    QuantizedConvolutionTuning const& tuning, std::optional<AlgorithmChoice>& choice, std::string& error)
{
    std::function<nvinfer1::TimingCacheValue()> time;
    if (tuning.timer != nullptr)
    {
        time = [&] {
            QuantizedConvolutionAlgorithmTimer::Result const timed = tuning.timer->fastest(params, input);
            return nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds};
        };
    }
    std::optional<nvinfer1::TimingCacheValue> value;
    try
    {
        if (!tuning.cache.cachedOrTimed(
                describe(params, input), record.name, tuning.errorOnCacheMiss, tuning.device, time, value, error))
        {
            return false;
        }
    }
    catch (std::exception const& e)
    {
        logVerbose("INT8 convolution \"" + record.name + "\" is not timed (" + e.what() + "); Kiln's kernels run it");
        return true;
    }
    AlgorithmChoice const stored = value ? AlgorithmChoice::fromTactic(value->tacticHash) : AlgorithmChoice{};
    if (stored == AlgorithmChoice::kilnKernel()
        || (stored.source == AlgorithmChoice::Source::kGRAPH_ENGINE && stored.index >= 0))
    {
        choice = stored;
    }
    return true;
}

//! `t`, where the builder evaluated its shape (a network tensor), else a network tensor of the same dimensions (as
//! expressions): a pass may add a tensor shaped as another, as the max pooling moved onto INT8 writes one shaped as
//! the pooling's output. -1 where there is none.
int32_t evaluatedShapeOf(plan::PlanModel const& model, int32_t t, int32_t networkTensors)
{
    if (t < networkTensors)
    {
        return t;
    }
    for (int32_t network = 0; network < networkTensors; ++network)
    {
        if (plan::sameShape(model, network, t))
        {
            return network;
        }
    }
    return -1;
}

} // namespace

bool tuneQuantizedConvolutions(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape,
    int32_t networkTensors, QuantizedConvolutionTuning const& tuning, std::string& error)
{
    size_t onCudnn = 0;
    size_t onKernel = 0;
    for (plan::LayerRecord& record : model.layers)
    {
        if (record.type != network::kQuantizedConvolutionLayerType || record.inputs.empty() || record.inputs[0] < 0)
        {
            continue;
        }
        int32_t const shapedAs = evaluatedShapeOf(model, record.inputs[0], networkTensors);
        if (shapedAs < 0)
        {
            continue;
        }
        auto const& params = *plan::paramsOf<network::QuantizedConvolutionParams>(record);
        Shape const input = optShape(shapedAs);
        if (!QuantizedConvolutionGraph::takes(params, input, plan::slotFormat(model, record, 0)))
        {
            continue;
        }
        std::optional<AlgorithmChoice> choice;
        if (!timedChoice(record, params, input, tuning, choice, error))
        {
            return false;
        }
        record.backendChoice = choice ? choice->encode() : std::vector<uint8_t>{};
        if (choice)
        {
            ++(*choice == AlgorithmChoice::kilnKernel() ? onKernel : onCudnn);
        }
    }
    if (onCudnn + onKernel > 0)
    {
        logInfo("INT8 convolutions: " + std::to_string(onCudnn) + " run cuDNN's graph engines, "
            + std::to_string(onKernel) + " Kiln's kernels, the faster at their shapes");
    }
    return true;
}

} // namespace kiln::cuda
