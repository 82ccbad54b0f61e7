#include "network/layers/layer_kinds.h"

namespace kiln::network
{

std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type)
{
    switch (type)
    {
#define KILN_MAKE_KIND(Params)                                                                                         \
    case Params::kLayerType: return std::make_unique<Params>();
        KILN_FOR_EACH_LAYER_KIND(KILN_MAKE_KIND)
#undef KILN_MAKE_KIND
    default: return nullptr;
    }
}

} // namespace kiln::network
