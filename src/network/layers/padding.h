// IPaddingLayer: zero padding of the innermost prePadding.nbDims dims; negative amounts crop.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct PaddingParams final : LayerParamsOf<PaddingParams, nvinfer1::LayerType::kPADDING, nvinfer1::IPaddingLayer>
{
    nvinfer1::Dims prePadding{};
    nvinfer1::Dims postPadding{};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.prePadding, "pre-padding");
        field(self.postPadding, "post-padding");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class PaddingLayer final : public LayerBase<nvinfer1::IPaddingLayer, PaddingParams>
{
public:
    using LayerBase::LayerBase;
    void setPrePaddingNd(nvinfer1::Dims const& padding) noexcept override
    {
        network().invalidate();
        mutableParams().prePadding = padding;
    }
    nvinfer1::Dims getPrePaddingNd() const noexcept override
    {
        return typedParams().prePadding;
    }
    void setPostPaddingNd(nvinfer1::Dims const& padding) noexcept override
    {
        network().invalidate();
        mutableParams().postPadding = padding;
    }
    nvinfer1::Dims getPostPaddingNd() const noexcept override
    {
        return typedParams().postPadding;
    }
};

} // namespace kiln::network
