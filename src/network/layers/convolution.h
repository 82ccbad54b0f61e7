// IConvolutionLayer and IDeconvolutionLayer: N-d grouped, strided, dilated, padded (de)convolution
// with kernel weights [K, C / groups, k...] (deconvolution: [C, K / groups, k...]) and optional bias [K].
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

//! Everything convolution and deconvolution share; defaults are TensorRT's (stride 1, padding 0, dilation 1).
struct WindowedFilterParams
{
    int64_t nbOutputMaps{0};
    int64_t nbGroups{1};
    nvinfer1::Dims kernelSize{};
    nvinfer1::Dims stride{};
    nvinfer1::Dims prePadding{};
    nvinfer1::Dims postPadding{};
    nvinfer1::Dims dilation{};
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
    WeightsBuffer kernel;
    WeightsBuffer bias;

    //! Sets the kernel size and TensorRT's default stride, padding and dilation for that many spatial axes.
    void setDefaults(nvinfer1::Dims const& size);
    bool inferFilter(InferenceContext& ctx, bool transposed) const;
    //! The window and weights checks and the output's shape alone (of `type`), for a kind that checks its inputs'
    //! count and types itself (a quantized convolution). Input 0 is the data.
    bool inferFilterWindow(InferenceContext& ctx, bool transposed, nvinfer1::DataType type) const;
    template <typename Self, typename Field>
    static void filterFields(Self& self, Field&& field)
    {
        field(self.nbOutputMaps, "output maps");
        field(self.nbGroups, "groups");
        field(self.kernelSize, "kernel size");
        field(self.stride, "stride");
        field(self.prePadding, "pre-padding");
        field(self.postPadding, "post-padding");
        field(self.dilation, "dilation");
        field(self.paddingMode, "padding mode");
        field(self.kernel, "kernel weights");
        field(self.bias, "bias weights");
    }
    void storeFilterWeightsAs(nvinfer1::DataType type)
    {
        kernel = kernel.storedAs(type);
        bias = bias.storedAs(type);
    }
    WeightsBuffer* filterWeightsOfRole(nvinfer1::WeightsRole role)
    {
        return role == nvinfer1::WeightsRole::kKERNEL ? &kernel
            : role == nvinfer1::WeightsRole::kBIAS    ? &bias
                                                      : nullptr;
    }
};

struct ConvolutionParams final
    : LayerParamsOf<ConvolutionParams, nvinfer1::LayerType::kCONVOLUTION, nvinfer1::IConvolutionLayer>,
      WindowedFilterParams
{
    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        filterFields(self, field);
    }

    void storeWeightsAs(nvinfer1::DataType type) override
    {
        storeFilterWeightsAs(type);
    }
    WeightsBuffer* weightsOfRole(nvinfer1::WeightsRole role) override
    {
        return filterWeightsOfRole(role);
    }
    bool infer(InferenceContext& ctx) const override
    {
        return inferFilter(ctx, false);
    }
    //! Where it computes in FP16 over 4-D tensors (the format pass checks).
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kSTARTS;
    }
};

struct DeconvolutionParams final
    : LayerParamsOf<DeconvolutionParams, nvinfer1::LayerType::kDECONVOLUTION, nvinfer1::IDeconvolutionLayer>,
      WindowedFilterParams
{
    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        filterFields(self, field);
    }

    void storeWeightsAs(nvinfer1::DataType type) override
    {
        storeFilterWeightsAs(type);
    }
    WeightsBuffer* weightsOfRole(nvinfer1::WeightsRole role) override
    {
        return filterWeightsOfRole(role);
    }
    bool infer(InferenceContext& ctx) const override
    {
        return inferFilter(ctx, true);
    }
};

//! The API of both kinds: their interfaces are the same methods.
template <typename Api, typename Params>
class WindowedFilterLayer final : public LayerBase<Api, Params>
{
public:
    using LayerBase<Api, Params>::LayerBase;

    void setNbOutputMaps(int64_t nbOutputMaps) noexcept override
    {
        change().nbOutputMaps = nbOutputMaps;
    }
    int64_t getNbOutputMaps() const noexcept override
    {
        return this->typedParams().nbOutputMaps;
    }
    void setNbGroups(int64_t nbGroups) noexcept override
    {
        change().nbGroups = nbGroups;
    }
    int64_t getNbGroups() const noexcept override
    {
        return this->typedParams().nbGroups;
    }
    void setKernelWeights(nvinfer1::Weights weights) noexcept override
    {
        change().kernel = WeightsBuffer(weights);
    }
    nvinfer1::Weights getKernelWeights() const noexcept override
    {
        return this->typedParams().kernel.view();
    }
    void setBiasWeights(nvinfer1::Weights weights) noexcept override
    {
        change().bias = WeightsBuffer(weights);
    }
    nvinfer1::Weights getBiasWeights() const noexcept override
    {
        return this->typedParams().bias.view();
    }
    void setPrePadding(nvinfer1::Dims const& padding) noexcept override
    {
        change().prePadding = padding;
    }
    nvinfer1::Dims getPrePadding() const noexcept override
    {
        return this->typedParams().prePadding;
    }
    void setPostPadding(nvinfer1::Dims const& padding) noexcept override
    {
        change().postPadding = padding;
    }
    nvinfer1::Dims getPostPadding() const noexcept override
    {
        return this->typedParams().postPadding;
    }
    void setPaddingMode(nvinfer1::PaddingMode paddingMode) noexcept override
    {
        change().paddingMode = paddingMode;
    }
    nvinfer1::PaddingMode getPaddingMode() const noexcept override
    {
        return this->typedParams().paddingMode;
    }
    void setKernelSizeNd(nvinfer1::Dims const& kernelSize) noexcept override
    {
        change().kernelSize = kernelSize;
    }
    nvinfer1::Dims getKernelSizeNd() const noexcept override
    {
        return this->typedParams().kernelSize;
    }
    void setStrideNd(nvinfer1::Dims const& stride) noexcept override
    {
        change().stride = stride;
    }
    nvinfer1::Dims getStrideNd() const noexcept override
    {
        return this->typedParams().stride;
    }
    void setPaddingNd(nvinfer1::Dims const& padding) noexcept override
    {
        Params& params = change();
        params.prePadding = padding;
        params.postPadding = padding;
    }
    nvinfer1::Dims getPaddingNd() const noexcept override
    {
        return this->typedParams().prePadding;
    }
    void setDilationNd(nvinfer1::Dims const& dilation) noexcept override
    {
        change().dilation = dilation;
    }
    nvinfer1::Dims getDilationNd() const noexcept override
    {
        return this->typedParams().dilation;
    }

private:
    //! Parameters about to change: shapes must be inferred again.
    Params& change()
    {
        this->network().invalidate();
        return this->mutableParams();
    }
};

using ConvolutionLayer = WindowedFilterLayer<nvinfer1::IConvolutionLayer, ConvolutionParams>;
using DeconvolutionLayer = WindowedFilterLayer<nvinfer1::IDeconvolutionLayer, DeconvolutionParams>;

} // namespace kiln::network
