#include "backend/cpu/passes/channel_affine.h"

#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "plan/passes/sample_normalization.h"

#include <utility>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

//! The element-wise layer of `operation` that alone reads layer `l`'s output, as channelAffineAfter takes it: its
//! index and its constant's values.
std::optional<std::pair<size_t, std::vector<float>>> affineReader(plan::PlanModel const& model,
    plan::LayerRewrite const& edit, size_t l, ElementWiseOperation operation, int64_t channels)
{
    std::optional<size_t> const reader = plan::soleReader(model, edit.readers, l);
    if (!reader || edit.removed[*reader])
    {
        return std::nullopt;
    }
    plan::LayerRecord const& layer = model.layers[*reader];
    auto const* params = plan::paramsOf<network::ElementWiseParams>(layer);
    if (params == nullptr || params->operation != operation || layer.inputs.size() != 2 || layer.epilogue.any()
        || !layer.guards.empty() || !layer.ioTypes.empty() || !float32Throughout(model, layer))
    {
        return std::nullopt;
    }
    int32_t const x = model.layers[l].outputs[0];
    if (layer.inputs[0] != x && layer.inputs[1] != x)
    {
        return std::nullopt;
    }
    int32_t const other = layer.inputs[0] == x ? layer.inputs[1] : layer.inputs[0];
    // The layer must write x's shape: the constant only broadcasts into it.
    if (!plan::sameShapeEveryRun(model, edit.known, x, layer.outputs[0]))
    {
        return std::nullopt;
    }
    std::optional<std::vector<float>> values = perChannelConstant(model, edit, other, channels);
    return values ? std::optional(std::pair(*reader, std::move(*values))) : std::nullopt;
}

} // namespace

bool float32Throughout(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return (!layer.precision || *layer.precision == DataType::kFLOAT)
        && plan::computesIn(model, layer, layer.precision, DataType::kFLOAT);
}

std::optional<std::vector<float>> perChannelConstant(
    plan::PlanModel const& model, plan::LayerRewrite const& edit, int32_t t, int64_t channels)
{
    if (t < 0 || edit.producers[t] < 0 || model.tensors[t].type != DataType::kFLOAT)
    {
        return std::nullopt;
    }
    network::ConstantParams const* constant = plan::fixedConstant(model.layers[edit.producers[t]]);
    std::optional<std::vector<int64_t>> const dims = plan::constantDims(model, t);
    if (constant == nullptr || !dims || !plan::holdsOneValueOrOnePerChannel(*dims, channels))
    {
        return std::nullopt;
    }
    std::vector<float> values = constant->weights.toFloat();
    if (values.size() == 1)
    {
        values.assign(static_cast<size_t>(channels), values[0]);
    }
    return values.size() == static_cast<size_t>(channels) ? std::optional(std::move(values)) : std::nullopt;
}

void removeChannelAffine(plan::PlanModel const& model, plan::LayerRewrite& edit, ChannelAffine const& affine)
{
    for (size_t f : affine.layers)
    {
        int32_t const first = model.layers[f].inputs[0];
        edit.remove(model, f); // with the constants of the slots after the first, which hold data elsewhere
        // Here a first operand that a constant writes is the constant (scale * x): it goes where nothing else reads it.
        int64_t const producer = edit.producers[first];
        if (producer >= 0 && model.layers[producer].type == nvinfer1::LayerType::kCONSTANT)
        {
            std::erase(edit.readers[first], f);
            if (edit.readers[first].empty() && !plan::isObserved(model.tensors[first]))
            {
                edit.removed[static_cast<size_t>(producer)] = true;
            }
        }
    }
}

std::optional<ChannelAffine> channelAffineAfter(
    plan::PlanModel const& model, plan::LayerRewrite const& edit, size_t l, int64_t channels)
{
    ChannelAffine affine;
    size_t last = l;
    if (auto product = affineReader(model, edit, last, ElementWiseOperation::kPROD, channels))
    {
        affine.factor = std::move(product->second);
        last = product->first;
        affine.layers.push_back(last);
    }
    if (auto sum = affineReader(model, edit, last, ElementWiseOperation::kSUM, channels))
    {
        affine.shift = std::move(sum->second);
        last = sum->first;
        affine.layers.push_back(last);
    }
    return affine.layers.empty() ? std::nullopt : std::optional(std::move(affine));
}

} // namespace kiln::cpu
