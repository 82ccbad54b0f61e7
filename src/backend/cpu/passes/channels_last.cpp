#include "backend/cpu/passes/channels_last.h"

#include "backend/cpu/fast/fast_path.h"
#include "network/fused/quantized_convolution.h"
#include "network/plugin_layer.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <vector>

namespace kiln::cpu
{
namespace
{

using fast::ChannelsLastUse;
using nvinfer1::LayerType;
using nvinfer1::TensorFormat;

//! Whether the executor converts a channels-last tensor for `reader` where it reads it row-major: a built-in layer it
//! runs. Plugins and the boundary layers of loops and conditionals (which the execution context runs itself) read
//! tensors as they are stored.
bool convertsFor(plan::LayerRecord const& reader)
{
    switch (reader.type)
    {
    case LayerType::kRECURRENCE:
    case LayerType::kITERATOR:
    case LayerType::kLOOP_OUTPUT:
    case LayerType::kTRIP_LIMIT:
    case LayerType::kCONDITION:
    case LayerType::kCONDITIONAL_INPUT:
    case LayerType::kCONDITIONAL_OUTPUT: return false;
    default: return dynamic_cast<network::PluginParams const*>(reader.params.get()) == nullptr;
    }
}

//! Whether tensor `t` may be stored channels-last: FP32 (or INT8, between quantized convolutions) of four axes, not
//! observed by the application (its buffers and a debug listener's values are row-major), more than one element per
//! channel (one is the same bytes either way, and stays row-major for the layers that flatten it), every reader
//! converting where it needs to.
bool mayStoreChannelsLast(plan::PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t t)
{
    plan::TensorRecord const& tensor = model.tensors[t];
    bool const typeTaken = tensor.type == nvinfer1::DataType::kFLOAT || tensor.type == nvinfer1::DataType::kINT8;
    if (!typeTaken || tensor.dims.size() != 4 || plan::isObserved(tensor))
    {
        return false;
    }
    std::optional<std::vector<int64_t>> const dims = plan::constantDims(model, t);
    if (dims && (*dims)[2] * (*dims)[3] == 1)
    {
        return false;
    }
    return std::all_of(
        readers[t].begin(), readers[t].end(), [&](size_t reader) { return convertsFor(model.layers[reader]); });
}

//! Whether `reader` runs on the fast path and takes channels-last tensors as they are stored.
bool takesChannelsLast(plan::PlanModel const& model, plan::LayerRecord const& reader)
{
    return fast::isMarked(reader) && fast::channelsLastUse(model, reader) != ChannelsLastUse::kNO;
}

//! Whether every layer that reads tensor `t` takes channels-last tensors as they are stored (takesChannelsLast).
bool readersTakeChannelsLast(plan::PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t t)
{
    return std::all_of(readers[t].begin(), readers[t].end(),
        [&](size_t reader) { return takesChannelsLast(model, model.layers[reader]); });
}

//! Whether some layer that reads tensor `t` takes channels-last tensors as they are stored.
bool aReaderTakesChannelsLast(plan::PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t t)
{
    return std::any_of(readers[t].begin(), readers[t].end(),
        [&](size_t reader) { return takesChannelsLast(model, model.layers[reader]); });
}

//! Whether `layer`'s output is stored channels-last only where no reader would convert it: a quantized convolution's
//! (INT8 or FP32) and any INT8 tensor. Their readers are mostly standalone Q and DQ layers of the reference kernels,
//! for which the conversion costs more than the convolution saves.
bool channelsLastForItsReadersOnly(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return layer.type == network::kQuantizedConvolutionLayerType
        || model.tensors[layer.outputs[0]].type == nvinfer1::DataType::kINT8;
}

bool readsChannelsLast(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return std::any_of(layer.inputs.begin(), layer.inputs.end(),
        [&](int32_t t) { return t >= 0 && model.tensors[t].format == TensorFormat::kHWC; });
}

//! The formats `layer` reads and writes, its output's format decided: each tensor as stored where its kernel takes
//! both formats, its output's for the data that it computes on alike in both (kKEEPS), kLINEAR where it takes no
//! other.
std::vector<TensorFormat> slotFormats(plan::PlanModel const& model, plan::LayerRecord const& layer, ChannelsLastUse use)
{
    std::vector<TensorFormat> formats;
    for (size_t slot = 0; slot < layer.inputs.size(); ++slot)
    {
        int32_t const t = layer.inputs[slot];
        TensorFormat format = TensorFormat::kLINEAR;
        if (t >= 0 && use == ChannelsLastUse::kKEEPS && slot == 0)
        {
            format = model.tensors[layer.outputs[0]].format;
        }
        else if (t >= 0 && use != ChannelsLastUse::kNO)
        {
            format = model.tensors[t].format;
        }
        formats.push_back(format);
    }
    for (int32_t t : layer.outputs)
    {
        formats.push_back(t >= 0 ? model.tensors[t].format : TensorFormat::kLINEAR);
    }
    return formats;
}

} // namespace

void storeChannelsLast(plan::PlanModel& model)
{
    // Layers run in order, so a layer's inputs have their formats by the time it is decided.
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    for (plan::LayerRecord& layer : model.layers)
    {
        ChannelsLastUse const use = fast::isMarked(layer) ? fast::channelsLastUse(model, layer) : ChannelsLastUse::kNO;
        bool const continues = use == ChannelsLastUse::kCONTINUES || use == ChannelsLastUse::kKEEPS;
        // A layer that continues a region ends it where none of its readers would read channels-last data as stored:
        // it writes row-major as it goes (a concatenation or a slice transposes as it copies), where each reader
        // would otherwise convert (ShuffleNetV2's joins, read by the reshapes of its channel shuffles).
        bool const continuesForReaders = continues && readsChannelsLast(model, layer)
            && aReaderTakesChannelsLast(model, readers, layer.outputs[0]);
        // A layer that starts a region does so only where a reader continues it: where every reader would convert
        // (ResNeSt's reshapes that split a convolution's channels into its radix groups), the layer writes row-major
        // itself, one conversion as it writes instead of one per reader, and a reshape of its output is a view.
        bool const startsForReaders = use == ChannelsLastUse::kSTARTS
            && aReaderTakesChannelsLast(model, readers, layer.outputs[0]);
        if ((startsForReaders || continuesForReaders) && mayStoreChannelsLast(model, readers, layer.outputs[0])
            && (!channelsLastForItsReadersOnly(model, layer)
                || readersTakeChannelsLast(model, readers, layer.outputs[0])))
        {
            model.tensors[layer.outputs[0]].format = TensorFormat::kHWC;
        }
        plan::setIoFormats(model, layer, slotFormats(model, layer, use));
    }
}

} // namespace kiln::cpu
