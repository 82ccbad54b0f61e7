// IConcatenationLayer: joins its inputs along one axis; every other extent must agree.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct ConcatenationParams final
    : LayerParamsOf<ConcatenationParams, nvinfer1::LayerType::kCONCATENATION, nvinfer1::IConcatenationLayer>
{
    //! TensorRT's default, fixed when the layer is added: rank - 3, or 0 for ranks below 3.
    int32_t axis{0};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axis, "concatenation axis");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    //! Joins channels-last inputs along any axis: rows of the output's storage order, as the CUDA kernel copies them.
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES;
    }
};

class ConcatenationLayer final : public LayerBase<nvinfer1::IConcatenationLayer, ConcatenationParams>
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
