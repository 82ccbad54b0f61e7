// IOneHotLayer: indices (INT32 or INT64) -> the indices' shape with a new dim of extent depth inserted at `axis`
// (in [-(rank + 1), rank]; -1 appends it); element j along it is values[1] ("on") where the index is j and
// values[0] ("off") elsewhere. Negative indices count from depth; out-of-range indices give an all-off row.
// values: a 1-D tensor of two elements, of the output's type. depth: a 0-D INT32/INT64 shape tensor.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct OneHotParams final : LayerParamsOf<OneHotParams, nvinfer1::LayerType::kONE_HOT, nvinfer1::IOneHotLayer>
{
    int32_t axis{-1};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axis, "one-hot axis");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class OneHotLayer final : public LayerBase<nvinfer1::IOneHotLayer, OneHotParams>
{
public:
    using LayerBase::LayerBase;
    void setAxis(int32_t axis) noexcept override
    {
        network().invalidate();
        mutableParams().axis = axis;
    }
    int32_t getAxis() const noexcept override
    {
        return typedParams().axis;
    }
};

} // namespace kiln::network
