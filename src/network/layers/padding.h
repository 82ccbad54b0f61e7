// IPaddingLayer: zero padding of the innermost prePadding.nbDims dims; negative amounts crop.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct PaddingParams final : LayerParams
{
    nvinfer1::Dims prePadding{};
    nvinfer1::Dims postPadding{};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kPADDING;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        writer.writeDims(prePadding);
        writer.writeDims(postPadding);
    }
    bool read(plan::ByteReader& reader) override
    {
        return reader.readDims(prePadding, "pre-padding") && reader.readDims(postPadding, "post-padding");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<PaddingParams>(*this);
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
