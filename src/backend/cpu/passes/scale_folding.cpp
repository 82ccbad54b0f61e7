#include "backend/cpu/passes/scale_folding.h"

#include "backend/cpu/passes/channel_affine.h"

#include "network/layers/convolution.h"
#include "network/layers/scale.h"
#include "plan/plan_graph.h"

#include <optional>

namespace kiln::cpu
{
using plan::LayerRecord;
using plan::PlanModel;

namespace
{

using nvinfer1::DataType;

//! Per output map of a convolution with `maps` of them: the scale's factor and shift, where the scale layer can be
//! folded (a factor and shift per channel along axis 1, or one for all, and no power other than 1).
struct MapAffine
{
    std::vector<float> factor;
    std::vector<float> shift;
};

std::optional<MapAffine> channelAffine(network::ScaleParams const& scale, int64_t maps)
{
    for (float power : scale.power.toFloat())
    {
        if (power != 1.0F)
        {
            return std::nullopt;
        }
    }
    bool const perChannel = scale.mode == nvinfer1::ScaleMode::kCHANNEL && scale.channelAxis == 1;
    if (!perChannel && scale.mode != nvinfer1::ScaleMode::kUNIFORM)
    {
        return std::nullopt;
    }
    auto expand = [&](network::WeightsBuffer const& weights, float absent) -> std::optional<std::vector<float>> {
        std::vector<float> values = weights.toFloat();
        if (values.empty())
        {
            return std::vector<float>(static_cast<size_t>(maps), absent);
        }
        if (!perChannel && values.size() == 1)
        {
            return std::vector<float>(static_cast<size_t>(maps), values[0]);
        }
        return static_cast<int64_t>(values.size()) == maps ? std::optional(values) : std::nullopt;
    };
    std::optional<std::vector<float>> factor = expand(scale.scale, 1.0F);
    std::optional<std::vector<float>> shift = expand(scale.shift, 0.0F);
    if (!factor || !shift)
    {
        return std::nullopt;
    }
    return MapAffine{std::move(*factor), std::move(*shift)};
}

network::WeightsBuffer floatWeights(std::vector<float> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

//! `convolution`'s parameters with `affine` applied to its output maps.
std::shared_ptr<network::ConvolutionParams> folded(
    network::ConvolutionParams const& convolution, MapAffine const& affine)
{
    auto params = std::make_shared<network::ConvolutionParams>(convolution);
    std::vector<float> kernel = convolution.kernel.toFloat();
    std::vector<float> bias = convolution.bias.toFloat();
    bias.resize(affine.factor.size(), 0.0F);
    size_t const perMap = kernel.size() / affine.factor.size();
    for (size_t k = 0; k < affine.factor.size(); ++k)
    {
        for (size_t i = 0; i < perMap; ++i)
        {
            kernel[k * perMap + i] *= affine.factor[k];
        }
        bias[k] = bias[k] * affine.factor[k] + affine.shift[k];
    }
    params->kernel = floatWeights(kernel);
    params->bias = floatWeights(bias);
    return params;
}

//! Whether `layer` is a convolution with FP32 weights, computing in FP32, that nothing was fused into yet.
bool foldableConvolution(PlanModel const& model, LayerRecord const& layer)
{
    auto const* params = paramsOf<network::ConvolutionParams>(layer);
    return params != nullptr && layer.inputs.size() == 1 && !layer.epilogue.any() && params->nbOutputMaps > 0
        && params->kernel.type() == DataType::kFLOAT
        && (params->bias.empty() || params->bias.type() == DataType::kFLOAT)
        && params->kernel.count() % params->nbOutputMaps == 0
        && computesIn(model, layer, DataType::kFLOAT, DataType::kFLOAT);
}

//! The element-wise product and/or sum by per-channel constants after each foldable convolution (a frozen batch
//! normalization as transformers' ResNet exports write it), folded into it: the convolution takes the first folded
//! layer's place and writes the last one's output.
void foldElementWiseAffines(PlanModel& model)
{
    plan::LayerRewrite edit(model);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& convolution = model.layers[l];
        if (edit.removed[l] || !foldableConvolution(model, convolution) || holdsRefittableWeights(convolution))
        {
            continue;
        }
        auto const& params = *paramsOf<network::ConvolutionParams>(convolution);
        std::optional<ChannelAffine> const affine = channelAffineAfter(model, edit, l, params.nbOutputMaps);
        if (!affine)
        {
            continue;
        }
        auto const maps = static_cast<size_t>(params.nbOutputMaps);
        MapAffine const applied{affine->factor.value_or(std::vector<float>(maps, 1.0F)),
            affine->shift.value_or(std::vector<float>(maps, 0.0F))};
        LayerRecord merged = convolution;
        merged.params = folded(params, applied);
        for (size_t f : affine->layers)
        {
            merged.name += " + " + model.layers[f].name;
        }
        merged.outputs = model.layers[affine->layers.back()].outputs;
        edit.remove(model, l);
        removeChannelAffine(model, edit, *affine);
        edit.before[l].push_back(std::move(merged));
    }
    edit.apply(model);
}

} // namespace

void foldScalesIntoConvolutions(PlanModel& model)
{
    std::vector<std::vector<size_t>> const readers = readersOf(model);
    std::vector<bool> absorbed(model.layers.size(), false);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& convolution = model.layers[l];
        std::optional<size_t> const next = soleReader(model, readers, l);
        if (!foldableConvolution(model, convolution) || !next || holdsRefittableWeights(convolution)
            || holdsRefittableWeights(model.layers[*next]))
        {
            continue;
        }
        LayerRecord const& scaleLayer = model.layers[*next];
        auto const* scale = paramsOf<network::ScaleParams>(scaleLayer);
        if (scale == nullptr || !computesIn(model, scaleLayer, DataType::kFLOAT, DataType::kFLOAT))
        {
            continue;
        }
        auto const& params = *paramsOf<network::ConvolutionParams>(convolution);
        std::optional<MapAffine> const affine = channelAffine(*scale, params.nbOutputMaps);
        if (!affine)
        {
            continue;
        }
        // The convolution takes the scale's place in the order: its input is computed by then too.
        LayerRecord merged = convolution;
        merged.params = folded(params, *affine);
        merged.name += " + " + scaleLayer.name;
        merged.outputs = scaleLayer.outputs;
        model.layers[*next] = std::move(merged);
        absorbed[l] = true;
    }
    eraseLayers(model, absorbed);
    foldElementWiseAffines(model);
}

} // namespace kiln::cpu
