#include "network/layers/layer_kinds.h"

#include "network/layers/conditional.h"

namespace kiln::network
{

std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type)
{
    // On the value: PointwiseParams's and AttentionParams's types lie beyond nvinfer1::LayerType's enumerators.
    switch (static_cast<int32_t>(type))
    {
#define KILN_MAKE_KIND(Params)                                                                                         \
    case static_cast<int32_t>(Params::kLayerType): return std::make_unique<Params>();
        KILN_FOR_EACH_LAYER_KIND(KILN_MAKE_KIND)
#undef KILN_MAKE_KIND
    // Run by the execution context, not by a backend's kernel.
    case static_cast<int32_t>(nvinfer1::LayerType::kCONDITIONAL_OUTPUT):
        return std::make_unique<ConditionalOutputParams>();
    default: return nullptr;
    }
}

} // namespace kiln::network
