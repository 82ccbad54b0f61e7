// Network::addLayer, the common path of every INetworkDefinition::add* method.
// A header because it is a template instantiated by the add* methods' file.
#pragma once

#include "core/logging.h"
#include "network/network.h"

namespace kiln::network
{

template <typename LayerClass, typename Params, typename... Extra>
LayerClass* Network::addLayer(char const* kindName, std::vector<nvinfer1::ITensor*> const& inputs, Params params,
    int32_t minInputs, int32_t maxInputs, Extra&&... extra)
{
    if (!checkInputs(kindName, inputs))
    {
        return nullptr;
    }
    std::vector<Tensor*> tensors;
    for (nvinfer1::ITensor* input : inputs)
    {
        tensors.push_back(static_cast<Tensor*>(input));
    }
    int32_t const number = nextLayerNumber();
    std::string name = "(Unnamed Layer* " + std::to_string(number) + ") [" + kindName + "]";
    auto layer = std::make_unique<LayerClass>(*this, std::move(name), std::move(tensors), std::move(params), minInputs,
        maxInputs, std::forward<Extra>(extra)...);
    LayerClass* raw = layer.get();
    raw->createOutputs(raw->params().nbOutputs());
    mLayers.push_back(std::move(layer));
    // Like TensorRT, reject a layer whose shapes cannot be inferred right away.
    std::string error;
    if (!inferAppended(*raw, error))
    {
        logError(std::string("INetworkDefinition::add") + kindName + ": " + error);
        for (Tensor* output : raw->outputs())
        {
            destroyTensor(output);
        }
        mLayers.pop_back();
        return nullptr;
    }
    refreshShapes();
    return raw;
}

} // namespace kiln::network
