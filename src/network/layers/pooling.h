// IPoolingLayer: max, average or max-average blend over the last windowSize.nbDims axes.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct PoolingParams final : LayerParamsOf<PoolingParams, nvinfer1::LayerType::kPOOLING, nvinfer1::IPoolingLayer>
{
    nvinfer1::PoolingType poolingType{nvinfer1::PoolingType::kMAX};
    nvinfer1::Dims windowSize{};
    nvinfer1::Dims stride{};
    nvinfer1::Dims prePadding{};
    nvinfer1::Dims postPadding{};
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    float blendFactor{0.0F};
    bool averageCountExcludesPadding{true};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.poolingType, "pooling type");
        field(self.windowSize, "window size");
        field(self.stride, "stride");
        field(self.prePadding, "pre-padding");
        field(self.postPadding, "post-padding");
        field(self.paddingMode, "padding mode");
        field(self.blendFactor, "blend factor");
        field(self.averageCountExcludesPadding, "average count excludes padding");
    }

    bool infer(InferenceContext& ctx) const override;
    //! The CUDA pooling kernel has a channels-last variant for windows over two axes.
    ChannelsLast channelsLast() const override
    {
        return windowSize.nbDims == 2 ? ChannelsLast::kCONTINUES : ChannelsLast::kNO;
    }
};

class PoolingLayer final : public LayerBase<nvinfer1::IPoolingLayer, PoolingParams>
{
public:
    using LayerBase::LayerBase;
    void setPoolingType(nvinfer1::PoolingType type) noexcept override
    {
        change().poolingType = type;
    }
    nvinfer1::PoolingType getPoolingType() const noexcept override
    {
        return typedParams().poolingType;
    }
    void setBlendFactor(float blendFactor) noexcept override
    {
        change().blendFactor = blendFactor;
    }
    float getBlendFactor() const noexcept override
    {
        return typedParams().blendFactor;
    }
    void setAverageCountExcludesPadding(bool exclusive) noexcept override
    {
        change().averageCountExcludesPadding = exclusive;
    }
    bool getAverageCountExcludesPadding() const noexcept override
    {
        return typedParams().averageCountExcludesPadding;
    }
    void setPrePadding(nvinfer1::Dims const& padding) noexcept override
    {
        change().prePadding = padding;
    }
    nvinfer1::Dims getPrePadding() const noexcept override
    {
        return typedParams().prePadding;
    }
    void setPostPadding(nvinfer1::Dims const& padding) noexcept override
    {
        change().postPadding = padding;
    }
    nvinfer1::Dims getPostPadding() const noexcept override
    {
        return typedParams().postPadding;
    }
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override
    {
        change().paddingMode = paddingMode;
    }
    nvinfer1::PaddingMode getPaddingMode() const noexcept override
    {
        return typedParams().paddingMode;
    }
    void setWindowSizeNd(nvinfer1::Dims const& windowSize) noexcept override
    {
        change().windowSize = windowSize;
    }
    nvinfer1::Dims getWindowSizeNd() const noexcept override
    {
        return typedParams().windowSize;
    }
    void setStrideNd(nvinfer1::Dims const& stride) noexcept override
    {
        change().stride = stride;
    }
    nvinfer1::Dims getStrideNd() const noexcept override
    {
        return typedParams().stride;
    }
    void setPaddingNd(nvinfer1::Dims const& padding) noexcept override
    {
        change().prePadding = padding;
        mutableParams().postPadding = padding;
    }
    nvinfer1::Dims getPaddingNd() const noexcept override
    {
        return typedParams().prePadding;
    }

private:
    PoolingParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
