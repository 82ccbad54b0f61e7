// IActivationLayer: an element-wise activation function (alpha and beta as in TensorRT).
#pragma once

#include "network/layer.h"

namespace kiln::network
{

struct ActivationParams final : LayerParams
{
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0f};
    float beta{0.0f};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kACTIVATION;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override;
    bool read(plan::ByteReader& reader) override;
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<ActivationParams>(*this);
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
