// The public list of layer interfaces (include/kiln/LayerInterfaces.h) as a type per LayerType, so that each kind's
// description is checked against it when it compiles (layer_kinds.cpp): the list bindings cast layers by and the
// kinds Kiln has cannot drift apart.
#pragma once

#include "network/layer.h"

#include <kiln/LayerInterfaces.h>

#include <type_traits>

namespace kiln::network
{

//! The interface class the public list gives `kType`; PlanOnly where it lists none.
template <nvinfer1::LayerType kType>
struct ListedInterface
{
    using type = PlanOnly;
};

#define KILN_LISTED_INTERFACE(Type, Class)                                                                             \
    template <>                                                                                                        \
    struct ListedInterface<nvinfer1::LayerType::Type>                                                                  \
    {                                                                                                                  \
        using type = nvinfer1::Class;                                                                                  \
    };
KILN_FOR_EACH_LAYER_INTERFACE(KILN_LISTED_INTERFACE)
#undef KILN_LISTED_INTERFACE

//! Whether the kind `Params` agrees with the public list: a kind an application adds is listed under its LayerType
//! with its own interface class; a kind only plans hold (Interface PlanOnly) is not listed.
template <typename Params>
inline constexpr bool kAgreesWithPublicList
    = std::is_same_v<typename ListedInterface<Params::kLayerType>::type, typename Params::Interface>;

} // namespace kiln::network
