#include "backend/cuda/passes/convolution_tuning.h"

#include "core/dims_text.h"
#include "plan/byte_io.h"

#include <exception>
#include <optional>
#include <sstream>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

//! What of a layer's epilogue decides its algorithm: a convolution's graph engines are ranked for the graph with its
//! bias and fused epilogue.
std::string epilogueText(network::ConvolutionParams const& params)
{
    return " bias " + std::to_string(!params.bias.empty()) + " residual "
        + std::to_string(params.epilogue.addsResidual) + " relu " + std::to_string(params.epilogue.relu);
}

std::string epilogueText(network::DeconvolutionParams const&)
{
    return "";
}

//! Everything that decides which algorithm is fastest (not the weights' values).
template <typename Params>
std::string describe(char const* kind, Params const& params, Shape const& input, nvinfer1::DataType type,
    nvinfer1::TensorFormat format, size_t workspaceLimit)
{
    std::ostringstream text;
    text << kind << " type " << static_cast<int32_t>(type) << " format " << static_cast<int32_t>(format) << " input ";
    for (size_t i = 0; i < input.size(); ++i)
    {
        text << (i > 0 ? "x" : "") << input[i];
    }
    text << " maps " << params.nbOutputMaps << " groups " << params.nbGroups << " kernel " << dimsSpec(params.kernelSize)
         << " stride " << dimsSpec(params.stride) << " pre " << dimsSpec(params.prePadding) << " post "
         << dimsSpec(params.postPadding) << " dilation " << dimsSpec(params.dilation) << " mode "
         << static_cast<int32_t>(params.paddingMode) << " workspace " << workspaceLimit << epilogueText(params);
    return text.str();
}

template <typename Params>
std::optional<Params> readParams(plan::LayerRecord const& record, std::string& error)
{
    Params params;
    plan::ByteReader reader(record.params.data(), record.params.size());
    if (!params.read(reader))
    {
        error = "layer \"" + record.name + "\": its parameters cannot be read back: " + reader.error();
        return std::nullopt;
    }
    return params;
}

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
    nvinfer1::TensorFormat format, ConvolutionTuning const& tuning, std::optional<nvinfer1::TimingCacheValue>& choice,
    std::string& error, TimingFailure onFailure = TimingFailure::kERROR)
{
    constexpr bool transposed = std::is_same_v<Params, network::DeconvolutionParams>;
    std::string const description
        = describe(transposed ? "deconvolution" : "convolution", params, input, type, format, tuning.workspaceLimit);
    choice = tuning.cache.find(description);
    if (!choice && tuning.errorOnCacheMiss)
    {
        error = "layer \"" + record.name + "\": the timing cache has no entry for it (" + description
            + ") and BuilderFlag::kERROR_ON_TIMING_CACHE_MISS is set";
        return false;
    }
    if (choice || tuning.timer == nullptr)
    {
        return true;
    }
    try
    {
        AlgorithmTimer::Result timed;
        if constexpr (transposed)
        {
            timed = tuning.timer->fastestDeconvolution(params, input, type, tuning.workspaceLimit);
        }
        else
        {
            timed = tuning.timer->fastest(params, input, type, format, tuning.workspaceLimit);
        }
        choice = nvinfer1::TimingCacheValue{static_cast<uint64_t>(timed.algorithm), timed.milliseconds};
        tuning.cache.record(description, *choice, tuning.device);
        return true;
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
}

//! Chooses the algorithm of one layer whose parameters are `Params` and stores it in the record.
template <typename Params>
bool tune(plan::PlanModel& model, plan::LayerRecord& record, Shape const& input, ConvolutionTuning const& tuning,
    std::string& error)
{
    std::optional<Params> params = readParams<Params>(record, error);
    std::optional<nvinfer1::TimingCacheValue> choice;
    // The type and format the layer reads, as the CUDA executor decides them.
    if (!params
        || !choose(record, *params, input, plan::slotType(model, record, 0), plan::slotFormat(model, record, 0), tuning,
            choice, error))
    {
        return false;
    }
    if (!choice)
    {
        return true; // no GPU to time on: cuDNN's heuristics choose when a context first runs the layer
    }
    params->cudnnAlgorithm = static_cast<int32_t>(choice->tacticHash);
    plan::ByteWriter writer;
    params->write(writer);
    record.params = writer.take();
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
        bool const channelsLast = record.type == nvinfer1::LayerType::kCONVOLUTION
            && plan::slotFormat(model, record, 0) == nvinfer1::TensorFormat::kHWC;
        if (!channelsLast)
        {
            continue;
        }
        std::optional<network::ConvolutionParams> const params = readParams<network::ConvolutionParams>(record, error);
        if (!params)
        {
            return false;
        }
        Shape const input = optShape(record.inputs[0]);
        nvinfer1::DataType const type = plan::slotType(model, record, 0);
        std::optional<nvinfer1::TimingCacheValue> inChannelsLast;
        std::optional<nvinfer1::TimingCacheValue> inLinear;
        // A layout cuDNN cannot time here is no reason to fail the build: the comparison is left undecided.
        if (!choose(record, *params, input, type, nvinfer1::TensorFormat::kHWC, tuning, inChannelsLast, error,
                TimingFailure::kNO_CHOICE)
            || !choose(record, *params, input, type, nvinfer1::TensorFormat::kLINEAR, tuning, inLinear, error,
                TimingFailure::kNO_CHOICE))
        {
            return false;
        }
        if (!inChannelsLast || !inLinear)
        {
            return true; // nothing to compare by: channels-last, which cuDNN's FP16 tensor cores are made for
        }
        channelsLastMs += inChannelsLast->timingMSec;
        linearMs += inLinear->timingMSec;
    }
    faster = channelsLastMs <= linearMs;
    return true;
}

} // namespace kiln::cuda
