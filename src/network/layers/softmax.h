// ISoftMaxLayer: softmax along the one axis set in the axes bitmask. TensorRT's default axis, fixed when the
// layer is added, is rank - 3 for inputs of rank 3 or more (the C of NCHW) and 0 below.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct SoftMaxParams final : LayerParamsOf<SoftMaxParams, nvinfer1::LayerType::kSOFTMAX, nvinfer1::ISoftMaxLayer>
{
    uint32_t axes{1U};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axes, "softmax axes");
    }

    bool infer(InferenceContext& ctx) const override;
};

class SoftMaxLayer final : public LayerBase<nvinfer1::ISoftMaxLayer, SoftMaxParams>
{
public:
    using LayerBase::LayerBase;
    void setAxes(uint32_t axes) noexcept override
    {
        network().invalidate();
        mutableParams().axes = axes;
    }
    uint32_t getAxes() const noexcept override
    {
        return typedParams().axes;
    }
};

} // namespace kiln::network
