// IConstantLayer: a tensor of the given dimensions holding the weights (the output type is the weights' type).
// Small INT32 / INT64 constants of rank 0 or 1 are shape tensors: their values stay known during inference.
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

struct ConstantParams final : LayerParamsOf<ConstantParams, nvinfer1::LayerType::kCONSTANT, nvinfer1::IConstantLayer>
{
    nvinfer1::Dims dimensions{};
    WeightsBuffer weights;

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.dimensions, "constant dimensions");
        field(self.weights, "constant weights");
    }

    bool infer(InferenceContext& ctx) const override;
    WeightsBuffer* weightsOfRole(nvinfer1::WeightsRole role) override
    {
        return role == nvinfer1::WeightsRole::kCONSTANT ? &weights : nullptr;
    }
    bool keepsItsTypes() const override
    {
        return true;
    }
};

class ConstantLayer final : public LayerBase<nvinfer1::IConstantLayer, ConstantParams>
{
public:
    using LayerBase::LayerBase;
    void setWeights(nvinfer1::Weights weights) noexcept override
    {
        network().invalidate();
        mutableParams().weights = WeightsBuffer(weights);
    }
    nvinfer1::Weights getWeights() const noexcept override
    {
        return typedParams().weights.view();
    }
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override
    {
        network().invalidate();
        mutableParams().dimensions = dimensions;
    }
    nvinfer1::Dims getDimensions() const noexcept override
    {
        return typedParams().dimensions;
    }
};

} // namespace kiln::network
