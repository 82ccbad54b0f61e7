// ISelectLayer: condition ? then : else element by element, with numpy broadcasting of all three inputs.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct SelectParams final : LayerParamsOf<SelectParams, nvinfer1::LayerType::kSELECT, nvinfer1::ISelectLayer>
{
    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class SelectLayer final : public LayerBase<nvinfer1::ISelectLayer, SelectParams>
{
public:
    using LayerBase::LayerBase;
};

} // namespace kiln::network
