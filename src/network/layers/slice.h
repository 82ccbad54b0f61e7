// ISliceLayer: output element i along dim d reads input coordinate start[d] + i * stride[d]; the output shape
// is `size`. Start, size and stride may instead come from 1-D shape tensors (inputs 1, 2, 3) whose values are
// known while shapes are inferred; input 4 is the kFILL value (a 0-D tensor of the data's type).
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct SliceParams final : LayerParamsOf<SliceParams, nvinfer1::LayerType::kSLICE, nvinfer1::ISliceLayer>
{
    nvinfer1::Dims start{};
    nvinfer1::Dims size{};
    nvinfer1::Dims stride{};
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.start, "slice start");
        field(self.size, "slice size");
        field(self.stride, "slice stride");
        field(self.mode, "slice mode");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    //! Slices channels-last data along its storage order (the CUDA kernel permutes its axes so); its start, size and
    //! stride stay row-major.
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES;
    }
};

class SliceLayer final : public LayerBase<nvinfer1::ISliceLayer, SliceParams>
{
public:
    using LayerBase::LayerBase;
    void setStart(nvinfer1::Dims const& start) noexcept override
    {
        change().start = start;
    }
    nvinfer1::Dims getStart() const noexcept override
    {
        return typedParams().start;
    }
    void setSize(nvinfer1::Dims const& size) noexcept override
    {
        change().size = size;
    }
    nvinfer1::Dims getSize() const noexcept override
    {
        return typedParams().size;
    }
    void setStride(nvinfer1::Dims const& stride) noexcept override
    {
        change().stride = stride;
    }
    nvinfer1::Dims getStride() const noexcept override
    {
        return typedParams().stride;
    }
    void setMode(nvinfer1::SampleMode mode) noexcept override
    {
        change().mode = mode;
    }
    nvinfer1::SampleMode getMode() const noexcept override
    {
        return typedParams().mode;
    }
    // slice.cpp: Kiln slices every axis in order.
    void setAxes(nvinfer1::Dims const& axes) noexcept override;
    nvinfer1::Dims getAxes() const noexcept override;

private:
    SliceParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
