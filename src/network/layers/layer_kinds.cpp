#include "network/layers/layer_kinds.h"

#include "network/layers/conditional.h"
#include "network/layers/listed_interface.h"
#include "network/layers/loop.h"

namespace kiln::network
{

// The public list is what bindings cast layers by, so every kind an application adds, and the conditional's and loops'
// boundary kinds, are in it with their own interface class, and no kind only plans hold is.
#define KILN_CHECK_KIND(Params)                                                                                        \
    static_assert(kAgreesWithPublicList<Params>,                                                                       \
        #Params ": include/kiln/LayerInterfaces.h must list its LayerType with its interface class");
KILN_FOR_EACH_LAYER_KIND(KILN_CHECK_KIND)
KILN_CHECK_KIND(ConditionParams)
KILN_CHECK_KIND(ConditionalOutputParams)
KILN_CHECK_KIND(RecurrenceParams)
KILN_CHECK_KIND(TripLimitParams)
KILN_CHECK_KIND(IteratorParams)
KILN_CHECK_KIND(LoopOutputParams)
#undef KILN_CHECK_KIND
#define KILN_CHECK_NETWORK_KIND(Params) static_assert(!Params::kPlanOnly, #Params " is added by the network API");
KILN_FOR_EACH_NETWORK_LAYER_KIND(KILN_CHECK_NETWORK_KIND)
#undef KILN_CHECK_NETWORK_KIND
#define KILN_CHECK_PLAN_ONLY_KIND(Params) static_assert(Params::kPlanOnly, #Params " is held by plans only");
KILN_FOR_EACH_PLAN_ONLY_LAYER_KIND(KILN_CHECK_PLAN_ONLY_KIND)
#undef KILN_CHECK_PLAN_ONLY_KIND

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
    case static_cast<int32_t>(nvinfer1::LayerType::kRECURRENCE): return std::make_unique<RecurrenceParams>();
    case static_cast<int32_t>(nvinfer1::LayerType::kTRIP_LIMIT): return std::make_unique<TripLimitParams>();
    case static_cast<int32_t>(nvinfer1::LayerType::kITERATOR): return std::make_unique<IteratorParams>();
    case static_cast<int32_t>(nvinfer1::LayerType::kLOOP_OUTPUT): return std::make_unique<LoopOutputParams>();
    default: return nullptr;
    }
}

} // namespace kiln::network
