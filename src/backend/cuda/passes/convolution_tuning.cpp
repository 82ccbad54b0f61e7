#include "backend/cuda/passes/convolution_tuning.h"

#include "core/dims_text.h"
#include "plan/plan_graph.h"

#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

//! What of a layer's epilogue decides its algorithm: a convolution's graph engines are ranked for the graph with its
//! bias and fused epilogue.
std::string epilogueText(network::ConvolutionParams const& params, plan::Epilogue const& epilogue)
{
    return " bias " + std::to_string(!params.bias.empty()) + " residual " + std::to_string(epilogue.addsResidual)
        + " relu " + std::to_string(epilogue.relu());
}

std::string epilogueText(network::DeconvolutionParams const&, plan::Epilogue const&)
{
    return "";
}

//! Everything that decides which algorithm is fastest (not the weights' values).
template <typename Params>
std::string describe(char const* kind, Params const& params, plan::Epilogue const& epilogue, Shape const& input,
    nvinfer1::DataType type, nvinfer1::TensorFormat format, size_t workspaceLimit)
{
    std::ostringstream text;
    text << kind << " type " << static_cast<int32_t>(type) << " format " << static_cast<int32_t>(format) << " input "
         << shapeSpec(input) << " maps " << params.nbOutputMaps << " groups " << params.nbGroups << " kernel "
         << dimsSpec(params.kernelSize) << " stride " << dimsSpec(params.stride) << " pre "
         << dimsSpec(params.prePadding) << " post " << dimsSpec(params.postPadding) << " dilation "
         << dimsSpec(params.dilation) << " mode " << static_cast<int32_t>(params.paddingMode) << " workspace "
         << workspaceLimit << epilogueText(params, epilogue);
    return text.str();
}

//! A timed algorithm, and how long it took.
struct Timing
{
    AlgorithmChoice choice;
    float milliseconds{0};
};

//! What choose does when timing fails: the algorithm a plan runs must be timed, but a layout comparison can do
//! without one.
enum class TimingFailure
{
    kERROR,
    kNO_CHOICE,
};

//! The algorithm, and its time, for layer `record` (parameters `params`) on an input of `input` in `type` stored in
//! `format`: the cache's, else timed on the GPU and recorded in the cache; none where neither can answer (no GPU).
//! False with `error` when the cache misses under kERROR_ON_TIMING_CACHE_MISS, or when timing fails and `onFailure`
//! says that is an error.
template <typename Params>
bool choose(plan::LayerRecord const& record, Params const& params, Shape const& input, nvinfer1::DataType type,
    nvinfer1::TensorFormat format, ConvolutionTuning const& tuning, std::optional<Timing>& timing, std::string& error,
    TimingFailure onFailure = TimingFailure::kERROR)
{
    constexpr bool transposed = std::is_same_v<Params, network::DeconvolutionParams>;
    std::string const description = describe(transposed ? "deconvolution" : "convolution", params, record.epilogue,
        input, type, format, tuning.workspaceLimit);
    std::function<nvinfer1::TimingCacheValue()> time;
    if (tuning.timer != nullptr)
    {
        time = [&] {
            AlgorithmTimer::Result timed;
            if constexpr (transposed)
            {
                timed = tuning.timer->fastestDeconvolution(params, input, type, tuning.workspaceLimit);
            }
            else
            {
                timed = tuning.timer->fastest(params, record.epilogue, input, type, format, tuning.workspaceLimit);
            }
            return nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds};
        };
    }
    std::optional<nvinfer1::TimingCacheValue> value;
    try
    {
        if (!tuning.cache.cachedOrTimed(
                description, record.name, tuning.errorOnCacheMiss, tuning.device, time, value, error))
        {
            return false;
        }
    }
    catch (std::exception const& e)
    {
        if (onFailure == TimingFailure::kNO_CHOICE)
        {
            return true;
        }
        error = "layer \"" + record.name + "\": timing its cuDNN algorithms failed: " + e.what();
        return false;
    }
    if (value)
    {
        timing = Timing{AlgorithmChoice::fromTactic(value->tacticHash), value->timingMSec};
    }
    return true;
}

//! Chooses the algorithm of one layer whose parameters are `Params` and keeps it as the layer's backend choice.
template <typename Params>
bool tune(plan::PlanModel& model, plan::LayerRecord& record, Shape const& input, ConvolutionTuning const& tuning,
    std::string& error)
{
    std::optional<Timing> timing;
    // The type and format the layer reads, as the CUDA executor decides them.
    if (!choose(record, *plan::paramsOf<Params>(record), input, plan::slotType(model, record, 0),
            plan::slotFormat(model, record, 0), tuning, timing, error))
    {
        return false;
    }
    // Without a GPU to time on, cuDNN's heuristics choose when a context first runs the layer.
    record.backendChoice = timing ? timing->choice.encode() : std::vector<uint8_t>{};
    return true;
}

} // namespace

bool tuneConvolutions(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape,
    ConvolutionTuning const& tuning, std::string& error)
{
    for (plan::LayerRecord& record : model.layers)
    {
        bool const filter = record.type == nvinfer1::LayerType::kCONVOLUTION
            || record.type == nvinfer1::LayerType::kDECONVOLUTION;
        if (!filter || record.inputs.empty() || record.inputs[0] < 0)
        {
            continue;
        }
        Shape const input = optShape(record.inputs[0]);
        bool const tuned = record.type == nvinfer1::LayerType::kCONVOLUTION
            ? tune<network::ConvolutionParams>(model, record, input, tuning, error)
            : tune<network::DeconvolutionParams>(model, record, input, tuning, error);
        if (!tuned)
        {
            return false;
        }
    }
    return true;
}

bool channelsLastIsFaster(plan::PlanModel const& model, std::function<Shape(int32_t)> const& optShape,
    ConvolutionTuning const& tuning, bool& faster, std::string& error)
{
    faster = true;
    double channelsLastMs = 0.0;
    double linearMs = 0.0;
    for (plan::LayerRecord const& record : model.layers)
    {
        // Other layers' first input may be absent (a Fill's shape): only convolutions' formats are asked.
        if (record.type != nvinfer1::LayerType::kCONVOLUTION)
        {
            continue;
        }
        nvinfer1::TensorFormat const format = plan::slotFormat(model, record, 0);
        if (!channelsLast(format))
        {
            continue;
        }
        auto const& params = *plan::paramsOf<network::ConvolutionParams>(record);
        Shape const input = optShape(record.inputs[0]);
        nvinfer1::DataType const type = plan::slotType(model, record, 0);
        std::optional<Timing> inChannelsLast;
        std::optional<Timing> inLinear;
        // A layout cuDNN cannot time here is no reason to fail the build: the comparison is left undecided.
        if (!choose(record, params, input, type, format, tuning, inChannelsLast, error, TimingFailure::kNO_CHOICE)
            || !choose(record, params, input, type, nvinfer1::TensorFormat::kLINEAR, tuning, inLinear, error,
                TimingFailure::kNO_CHOICE))
        {
            return false;
        }
        if (!inChannelsLast || !inLinear)
        {
            return true; // nothing to compare by: channels-last, which cuDNN's FP16 tensor cores are made for
        }
        channelsLastMs += inChannelsLast->milliseconds;
        linearMs += inLinear->milliseconds;
    }
    faster = channelsLastMs <= linearMs;
    return true;
}

} // namespace kiln::cuda
