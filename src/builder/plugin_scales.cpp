#include "builder/plugin_scales.h"

#include "network/layers/constant.h"
#include "network/layers/quantize.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kiln::builder
{
namespace
{

//! The one coefficient of a per-tensor scale: the value of a constant of one element. Per-channel scales (and
//! scales computed at run time) have none to give a plugin.
std::optional<float> perTensorScale(network::Tensor const* scale)
{
    network::Layer const* producer = scale != nullptr ? scale->producer() : nullptr;
    auto const* constant = producer != nullptr ? dynamic_cast<network::ConstantParams const*>(&producer->params())
                                               : nullptr;
    if (constant == nullptr || constant->weights.count() != 1)
    {
        return std::nullopt;
    }
    return constant->weights.toFloat()[0];
}

//! The scale of the quantize layer that writes `tensor`, if one does.
std::optional<float> quantizeScale(network::Tensor const& tensor)
{
    network::Layer const* producer = tensor.producer();
    if (producer == nullptr || dynamic_cast<network::QuantizeParams const*>(&producer->params()) == nullptr
        || producer->inputs().size() < 2)
    {
        return std::nullopt;
    }
    return perTensorScale(producer->inputs()[1]);
}

//! The scale of the first dequantize layer among `layers` that reads `tensor` as its data, if one does.
std::optional<float> dequantizeScale(network::Tensor const& tensor, std::vector<network::Layer const*> const& layers)
{
    for (network::Layer const* layer : layers)
    {
        if (dynamic_cast<network::DequantizeParams const*>(&layer->params()) != nullptr && layer->inputs().size() >= 2
            && layer->inputs()[0] == &tensor)
        {
            return perTensorScale(layer->inputs()[1]);
        }
    }
    return std::nullopt;
}

} // namespace

float pluginTensorScale(
    network::Tensor const& tensor, nvinfer1::DataType type, std::vector<network::Layer const*> const& layers)
{
    if (type != nvinfer1::DataType::kINT8 && type != nvinfer1::DataType::kFP8)
    {
        return -1.0F;
    }
    if (std::optional<float> const scale = quantizeScale(tensor))
    {
        return *scale;
    }
    if (std::optional<float> const scale = dequantizeScale(tensor, layers))
    {
        return *scale;
    }
    if (type == nvinfer1::DataType::kINT8 && tensor.dynamicRangeIsSet())
    {
        // Symmetric INT8: the larger magnitude of the range maps to 127.
        float const range = std::max(std::abs(tensor.getDynamicRangeMin()), std::abs(tensor.getDynamicRangeMax()));
        return range / 127.0F;
    }
    return -1.0F;
}

} // namespace kiln::builder
