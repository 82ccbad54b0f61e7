// IActivationLayer: an element-wise activation function (alpha and beta as in TensorRT).
#pragma once

#include "network/layer.h"

namespace kiln::network
{

struct ActivationParams final
    : LayerParamsOf<ActivationParams, nvinfer1::LayerType::kACTIVATION, nvinfer1::IActivationLayer>
{
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0f};
    float beta{0.0f};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.activation, "activation type");
        field(self.alpha, "activation alpha");
        field(self.beta, "activation beta");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES;
    }
};

class ActivationLayer final : public LayerBase<nvinfer1::IActivationLayer, ActivationParams>
{
public:
    using LayerBase::LayerBase;
    void setActivationType(nvinfer1::ActivationType type) noexcept override;
    nvinfer1::ActivationType getActivationType() const noexcept override
    {
        return typedParams().activation;
    }
    void setAlpha(float alpha) noexcept override
    {
        mutableParams().alpha = alpha;
    }
    void setBeta(float beta) noexcept override
    {
        mutableParams().beta = beta;
    }
    float getAlpha() const noexcept override
    {
        return typedParams().alpha;
    }
    float getBeta() const noexcept override
    {
        return typedParams().beta;
    }
};

} // namespace kiln::network
