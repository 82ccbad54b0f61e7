#include "network/layers/layer_factory.h"

#include "network/layers/layer_kinds.h"

namespace kiln::network
{

std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type)
{
    using nvinfer1::LayerType;
    switch (type)
    {
    case LayerType::kACTIVATION: return std::make_unique<ActivationParams>();
    case LayerType::kELEMENTWISE: return std::make_unique<ElementWiseParams>();
    default: return nullptr;
    }
}

} // namespace kiln::network
