// IScaleLayer: output = (input * scale + shift) ^ power, with uniform, per-channel or per-element weights.
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

struct ScaleParams final : LayerParamsOf<ScaleParams, nvinfer1::LayerType::kSCALE, nvinfer1::IScaleLayer>
{
    nvinfer1::ScaleMode mode{nvinfer1::ScaleMode::kUNIFORM};
    int32_t channelAxis{1};
    WeightsBuffer shift;
    WeightsBuffer scale;
    WeightsBuffer power;

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.mode, "scale mode");
        field(self.channelAxis, "channel axis");
        field(self.shift, "shift");
        field(self.scale, "scale");
        field(self.power, "power");
    }

    void storeWeightsAs(nvinfer1::DataType type) override
    {
        shift = shift.storedAs(type);
        scale = scale.storedAs(type);
        power = power.storedAs(type);
    }
    //! The power has no refit role (as in TensorRT).
    WeightsBuffer* weightsOfRole(nvinfer1::WeightsRole role) override
    {
        return role == nvinfer1::WeightsRole::kSHIFT ? &shift
            : role == nvinfer1::WeightsRole::kSCALE  ? &scale
                                                     : nullptr;
    }
    bool infer(InferenceContext& ctx) const override;
};

class ScaleLayer final : public LayerBase<nvinfer1::IScaleLayer, ScaleParams>
{
public:
    using LayerBase::LayerBase;
    void setMode(nvinfer1::ScaleMode mode) noexcept override
    {
        change().mode = mode;
    }
    nvinfer1::ScaleMode getMode() const noexcept override
    {
        return typedParams().mode;
    }
    void setShift(nvinfer1::Weights shift) noexcept override
    {
        change().shift = WeightsBuffer(shift);
    }
    nvinfer1::Weights getShift() const noexcept override
    {
        return typedParams().shift.view();
    }
    void setScale(nvinfer1::Weights scale) noexcept override
    {
        change().scale = WeightsBuffer(scale);
    }
    nvinfer1::Weights getScale() const noexcept override
    {
        return typedParams().scale.view();
    }
    void setPower(nvinfer1::Weights power) noexcept override
    {
        change().power = WeightsBuffer(power);
    }
    nvinfer1::Weights getPower() const noexcept override
    {
        return typedParams().power.view();
    }
    int32_t getChannelAxis() const noexcept override
    {
        return typedParams().channelAxis;
    }
    void setChannelAxis(int32_t channelAxis) noexcept override
    {
        change().channelAxis = channelAxis;
    }

private:
    ScaleParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
