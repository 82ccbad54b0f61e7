#include "builder/convolution_tuning.h"

#include "plan/byte_io.h"

#include <exception>
#include <optional>
#include <sstream>
#include <type_traits>

namespace kiln::builder
{
namespace
{

std::string dimsText(nvinfer1::Dims const& dims)
{
    std::string text;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? "x" : "") + std::to_string(dims.d[i]);
    }
    return text;
}

//! Everything that decides which algorithm is fastest (not the weights' values, nor the fused epilogue, which
//! cuDNN applies after any algorithm).
std::string describe(char const* kind, network::WindowedFilterParams const& params, cpu::Shape const& input,
    nvinfer1::DataType type, nvinfer1::TensorFormat format, size_t workspaceLimit)
{
    std::ostringstream text;
    text << kind << " type " << static_cast<int32_t>(type) << " format " << static_cast<int32_t>(format) << " input ";
    for (size_t i = 0; i < input.size(); ++i)
    {
        text << (i > 0 ? "x" : "") << input[i];
    }
    text << " maps " << params.nbOutputMaps << " groups " << params.nbGroups << " kernel " << dimsText(params.kernelSize)
         << " stride " << dimsText(params.stride) << " pre " << dimsText(params.prePadding) << " post "
         << dimsText(params.postPadding) << " dilation " << dimsText(params.dilation) << " mode "
         << static_cast<int32_t>(params.paddingMode) << " workspace " << workspaceLimit;
    return text.str();
}

//! Times (or looks up) the algorithm of one layer whose parameters are `Params`, and stores it in the record.
template <typename Params>
bool tune(plan::PlanModel& model, plan::LayerRecord& record, cpu::Shape const& input, ConvolutionTuning const& tuning,
    std::string& error)
{
    constexpr bool transposed = std::is_same_v<Params, network::DeconvolutionParams>;
    char const* const kind = transposed ? "deconvolution" : "convolution";
    Params params;
    plan::ByteReader reader(record.params.data(), record.params.size());
    if (!params.read(reader))
    {
        error = "layer \"" + record.name + "\": its parameters cannot be read back: " + reader.error();
        return false;
    }
    // The type and format the layer reads, as the CUDA executor decides them.
    nvinfer1::DataType const type = plan::slotType(model, record, 0);
    nvinfer1::TensorFormat const format = plan::slotFormat(model, record, 0);
    std::string const description = describe(kind, params, input, type, format, tuning.workspaceLimit);
    std::optional<nvinfer1::TimingCacheValue> choice = tuning.cache.find(description);
    if (!choice && tuning.errorOnCacheMiss)
    {
        error = "layer \"" + record.name + "\": the timing cache has no entry for it (" + description
            + ") and BuilderFlag::kERROR_ON_TIMING_CACHE_MISS is set";
        return false;
    }
    if (!choice && tuning.timer != nullptr)
    {
        try
        {
            CudaConvolutionTimer::Result timed;
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
        }
        catch (std::exception const& e)
        {
            error = "layer \"" + record.name + "\": timing its cuDNN algorithms failed: " + e.what();
            return false;
        }
    }
    if (!choice)
    {
        return true; // no GPU to time on: cuDNN's heuristics choose when a context first runs the layer
    }
    params.cudnnAlgorithm = static_cast<int32_t>(choice->tacticHash);
    plan::ByteWriter writer;
    params.write(writer);
    record.params = writer.take();
    return true;
}

} // namespace

bool tuneConvolutions(plan::PlanModel& model, std::function<cpu::Shape(int32_t)> const& optShape,
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
        cpu::Shape const input = optShape(record.inputs[0]);
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

} // namespace kiln::builder
