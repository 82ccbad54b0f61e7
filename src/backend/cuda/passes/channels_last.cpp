#include "backend/cuda/passes/channels_last.h"

#include "core/tensor_view.h"
#include "network/layer.h"
#include "network/fused/quantized_convolution.h"
#include "network/layers/convolution.h"
#include "network/layers/layer_utils.h"
#include "plan/passes/sample_normalization.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace kiln::cuda
{
namespace
{

using nvinfer1::LayerType;
using nvinfer1::TensorFormat;

bool fourDimensional(plan::PlanModel const& model, int32_t tensor)
{
    return tensor >= 0 && model.tensors[tensor].dims.size() == 4;
}

//! How the layer's kind can take channels-last tensors (its description says: LayerParams::channelsLast).
network::ChannelsLast channelsLastOf(plan::LayerRecord const& layer)
{
    return layer.params != nullptr ? layer.params->channelsLast() : network::ChannelsLast::kNO;
}

//! A kind that starts regions (a convolution, fused or not) computing in FP16 over 4-D tensors, or a quantized
//! convolution reading INT8: the layers channels-last regions are made for (the INT8 kernel reads its windows in
//! place, and writes its sums in the output's order, only channels-last).
bool startsRegion(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    if (channelsLastOf(layer) != network::ChannelsLast::kSTARTS || !fourDimensional(model, layer.inputs[0]))
    {
        return false;
    }
    if (layer.type == network::kQuantizedConvolutionLayerType)
    {
        return plan::slotType(model, layer, 0) == nvinfer1::DataType::kINT8;
    }
    return plan::slotType(model, layer, 0) == nvinfer1::DataType::kHALF
        && plan::slotType(model, layer, layer.inputs.size()) == nvinfer1::DataType::kHALF;
}

//! Whether 4-D tensor `t` lies in memory alike in kLINEAR and kHWC at every shape: one channel, or no spatial extent
//! above 1 (a per-channel scale [N, C, 1, 1], a single element). Extents known only at run time count as above 1.
bool storedAlikeChannelsLast(plan::PlanModel const& model, int32_t t)
{
    if (plan::constantExtent(model, t, 1) == 1)
    {
        return true;
    }
    for (size_t axis = 2; axis < model.tensors[t].dims.size(); ++axis)
    {
        if (plan::constantExtent(model, t, axis) != 1)
        {
            return false;
        }
    }
    return true;
}

//! The kinds the CUDA element-wise and point-wise kernels run: they walk every input in the output's storage order,
//! broadcasts included (kernels/storage_order.h), so the layer declarations' limits to unbroadcast inputs or single
//! elements (which a kernel walking rows needs) do not bind them.
bool walksBroadcasts(network::ChannelsLast kind)
{
    return kind == network::ChannelsLast::kCONTINUES_UNBROADCAST
        || kind == network::ChannelsLast::kCONTINUES_WITH_SINGLES;
}

//! A quantize or dequantize layer of one scale (and zero point) for the whole tensor: it maps each element alone, in
//! whatever order they are stored (kernels/pointwise/quantize.cu), so a network's standalone Q/DQ pairs between its
//! fused INT8 convolutions, and the dequantization before its global pooling, need not leave a region. Per-channel
//! coefficients are found by the row-major index, and stay kLINEAR.
bool quantizesByOneScale(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    if (layer.type != LayerType::kQUANTIZE && layer.type != LayerType::kDEQUANTIZE)
    {
        return false;
    }
    for (size_t i = 1; i < layer.inputs.size(); ++i)
    {
        std::optional<std::vector<int64_t>> const dims
            = layer.inputs[i] >= 0 ? plan::constantDims(model, layer.inputs[i]) : std::nullopt;
        if (layer.inputs[i] >= 0 && (!dims || volume(*dims) != 1))
        {
            return false;
        }
    }
    return true;
}

//! A layer that computes the same on kHWC data as on kLINEAR, or has a kHWC kernel: it continues a region that
//! reaches one of its inputs. Its data (its first input) and its output are 4-D; other inputs of another rank (a
//! gather's indices, a slice's bounds) stay row-major.
bool continuesRegion(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    if (layer.outputs.size() != 1 || !fourDimensional(model, layer.outputs[0]) || layer.inputs.empty()
        || !fourDimensional(model, layer.inputs[0]))
    {
        return false;
    }
    if (plan::normalizesWholeSamples(model, layer))
    {
        return true; // each sample's elements lie together in both formats; one scale and one bias
    }
    if (quantizesByOneScale(model, layer))
    {
        return true;
    }
    network::ChannelsLast const kind = channelsLastOf(layer);
    if (walksBroadcasts(kind))
    {
        // Every input at the output's rank, so that its axes follow the output's into storage order.
        return std::all_of(
            layer.inputs.begin(), layer.inputs.end(), [&](int32_t input) { return fourDimensional(model, input); });
    }
    return kind == network::ChannelsLast::kCONTINUES;
}

//! The format a channels-last convolution reads its input in: kHWC8, with the channels padded to a multiple of 8,
//! where they are not one already (an RGB image): tensor cores take channels in eights. Grouped convolutions keep
//! their channels, which padding would move between groups.
TensorFormat inputFormatOf(plan::LayerRecord const& convolution)
{
    auto const& params = *plan::paramsOf<network::ConvolutionParams>(convolution);
    int64_t const taps = volume(network::dimsToVector(params.kernelSize));
    int64_t const channels = params.nbOutputMaps > 0 && taps > 0 ? params.kernel.count() / (params.nbOutputMaps * taps)
                                                                 : 0;
    return params.nbGroups == 1 && channels % 8 != 0 ? TensorFormat::kHWC8 : TensorFormat::kHWC;
}

bool readsChannelsLast(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    for (int32_t input : layer.inputs)
    {
        if (input >= 0 && channelsLast(model.tensors[input].format))
        {
            return true;
        }
    }
    return false;
}

//! Whether a layer that can continue a region joins one: it reads a channels-last tensor other than one stored alike
//! in both formats, or every input is stored alike and one is channels-last (so that joining converts nothing). A
//! channels-last [N, C, 1, 1] gate alone does not draw a product with a kLINEAR [N, C, H, W] into a region, which would
//! convert the large tensor to spare the small one.
bool entersRegion(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    bool channelsLastInput = false;
    bool largeChannelsLastInput = false;
    bool everyInputAlike = true;
    for (int32_t input : layer.inputs)
    {
        if (input < 0)
        {
            continue;
        }
        bool const alike = fourDimensional(model, input) && storedAlikeChannelsLast(model, input);
        bool const stored = channelsLast(model.tensors[input].format);
        channelsLastInput = channelsLastInput || stored;
        largeChannelsLastInput = largeChannelsLastInput || (stored && !alike);
        everyInputAlike = everyInputAlike && alike;
    }
    return largeChannelsLastInput || (channelsLastInput && everyInputAlike);
}

//! A quantize or dequantize layer of one scale through which a shuffle's output would reach a region: one of its
//! readers starts one or reads another channels-last input (ConvNeXt's INT8 blocks move their channels back on INT8
//! codes, then dequantize them for the residual sum).
bool leadsIntoRegion(
    plan::PlanModel const& model, plan::LayerRecord const& layer, std::vector<std::vector<size_t>> const& readers)
{
    if (!quantizesByOneScale(model, layer) || layer.outputs.size() != 1)
    {
        return false;
    }
    return std::any_of(readers[layer.outputs[0]].begin(), readers[layer.outputs[0]].end(),
        [&](size_t r) { return startsRegion(model, model.layers[r]) || readsChannelsLast(model, model.layers[r]); });
}

//! A shuffle reads a channels-last (kHWC) input as it is stored: its kernel folds the axis order into its transposes
//! (storedShuffle), so nothing converts the input first. It writes its output channels-last too where that leaves
//! every element in place (the channels moved back to axis 1, as ConvNeXt does after a LayerNorm over channels), and
//! every reader would then take it into a region; the output is then a view of the input (builder/view_layers.h).
void chooseShuffleFormats(
    plan::PlanModel& model, plan::LayerRecord& layer, std::vector<std::vector<size_t>> const& readers)
{
    int32_t const input = layer.inputs[0];
    int32_t const output = layer.outputs.size() == 1 ? layer.outputs[0] : -1;
    TensorFormat const readAs = input >= 0 && model.tensors[input].format == TensorFormat::kHWC ? TensorFormat::kHWC
                                                                                                : TensorFormat::kLINEAR;
    bool writeChannelsLast = fourDimensional(model, output) && !plan::isObserved(model.tensors[output])
        && !readers[output].empty() && plan::shuffleKeepsStoredOrder(model, layer, readAs, TensorFormat::kHWC);
    // Every reader takes channels-last data, and the shuffle makes no region of its own: some reader starts one (an
    // FP16 convolution) or already reads another channels-last input, itself or past a Q or DQ of one scale.
    bool joinsRegion = false;
    for (size_t r = 0; writeChannelsLast && r < readers[output].size(); ++r)
    {
        plan::LayerRecord const& reader = model.layers[readers[output][r]];
        bool const starts = startsRegion(model, reader);
        writeChannelsLast = starts || continuesRegion(model, reader);
        joinsRegion = joinsRegion || starts || readsChannelsLast(model, reader)
            || leadsIntoRegion(model, reader, readers);
    }
    writeChannelsLast = writeChannelsLast && joinsRegion;
    std::vector<TensorFormat> formats(layer.inputs.size() + layer.outputs.size(), TensorFormat::kLINEAR);
    formats[0] = readAs;
    if (writeChannelsLast)
    {
        model.tensors[output].format = TensorFormat::kHWC;
        formats[layer.inputs.size()] = TensorFormat::kHWC;
    }
    plan::setIoFormats(model, layer, std::move(formats));
}

//! A reduction's 4-D output stored alike in both formats (a squeeze-and-excitation pool, [N, C, 1, 1]) is marked kHWC
//! where the reduction reads channels-last data and every reader takes it into a region: the convolution after the
//! pool then reads it as it is stored, where a conversion would copy it. The reduction writes the same bytes.
void markPooledChannelsLast(
    plan::PlanModel& model, plan::LayerRecord const& layer, std::vector<std::vector<size_t>> const& readers)
{
    int32_t const output = layer.outputs.size() == 1 ? layer.outputs[0] : -1;
    if (!fourDimensional(model, output) || plan::isObserved(model.tensors[output]) || readers[output].empty()
        || !storedAlikeChannelsLast(model, output) || !readsChannelsLast(model, layer))
    {
        return;
    }
    for (size_t r : readers[output])
    {
        plan::LayerRecord const& reader = model.layers[r];
        if (!startsRegion(model, reader) && !continuesRegion(model, reader))
        {
            return;
        }
    }
    model.tensors[output].format = TensorFormat::kHWC;
}

} // namespace

void chooseChannelsLast(plan::PlanModel& model)
{
    // Layers run in order, so a layer's inputs have their formats by the time it is decided.
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    for (plan::LayerRecord& layer : model.layers)
    {
        network::ChannelsLast const kind = channelsLastOf(layer);
        if (kind == network::ChannelsLast::kREORDERS && !layer.inputs.empty())
        {
            chooseShuffleFormats(model, layer, readers);
            continue;
        }
        if (kind == network::ChannelsLast::kREADS_ANY)
        {
            // The CUDA reduction reads a channels-last input through its strides, and writes a linear output: the
            // global average pooling that ends a convolutional network needs no conversion.
            layer.ioFormats.clear();
            markPooledChannelsLast(model, layer, readers);
            continue;
        }
        size_t const slots = layer.inputs.size() + layer.outputs.size();
        bool const channelsLast = startsRegion(model, layer)
            || (continuesRegion(model, layer) && entersRegion(model, layer));
        if (!channelsLast)
        {
            plan::setIoFormats(model, layer, std::vector<TensorFormat>(slots, TensorFormat::kLINEAR));
            continue;
        }
        for (int32_t output : layer.outputs)
        {
            // The application's buffers are linear, and so are the values a debug listener gets: an output of the
            // network or a debug tensor is converted as it is written.
            if (!plan::isObserved(model.tensors[output]))
            {
                model.tensors[output].format = TensorFormat::kHWC;
            }
        }
        std::vector<TensorFormat> formats(slots, TensorFormat::kHWC);
        for (size_t input = 0; input < layer.inputs.size(); ++input)
        {
            if (layer.inputs[input] >= 0 && !fourDimensional(model, layer.inputs[input]))
            {
                formats[input] = TensorFormat::kLINEAR; // a gather's indices, a slice's bounds
            }
        }
        if (layer.type == LayerType::kCONVOLUTION)
        {
            formats[0] = inputFormatOf(layer);
        }
        bool const readsAlikeAsStored = walksBroadcasts(kind) || plan::normalizesWholeSamples(model, layer);
        for (size_t input = 0; readsAlikeAsStored && input < layer.inputs.size(); ++input)
        {
            int32_t const tensor = layer.inputs[input];
            if (tensor >= 0 && storedAlikeChannelsLast(model, tensor))
            {
                formats[input] = model.tensors[tensor].format; // read as it is stored: no conversion
            }
        }
        plan::setIoFormats(model, layer, std::move(formats));
    }
}

void storeLinear(plan::PlanModel& model)
{
    for (plan::TensorRecord& tensor : model.tensors)
    {
        tensor.format = TensorFormat::kLINEAR;
    }
    for (plan::LayerRecord& layer : model.layers)
    {
        layer.ioFormats.clear();
    }
}

} // namespace kiln::cuda
