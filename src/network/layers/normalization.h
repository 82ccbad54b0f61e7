// INormalizationLayer: (x - mean) / sqrt(variance + epsilon) * scale + bias, statistics over the axes mask
// (per channel group of axis 1 when nbGroups > 1). Inputs: data, scale, bias.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct NormalizationParams final
    : LayerParamsOf<NormalizationParams, nvinfer1::LayerType::kNORMALIZATION, nvinfer1::INormalizationLayer>
{
    uint32_t axes{0};
    float epsilon{1e-5F};
    int64_t nbGroups{1};
    nvinfer1::DataType computePrecision{nvinfer1::DataType::kFLOAT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axes, "normalization axes");
        field(self.epsilon, "normalization epsilon");
        field(self.nbGroups, "normalization groups");
        field(self.computePrecision, "normalization compute precision");
    }

    bool infer(InferenceContext& ctx) const override;
};

class NormalizationLayer final : public LayerBase<nvinfer1::INormalizationLayer, NormalizationParams>
{
public:
    using LayerBase::LayerBase;
    void setEpsilon(float eps) noexcept override
    {
        change().epsilon = eps;
    }
    float getEpsilon() const noexcept override
    {
        return typedParams().epsilon;
    }
    void setAxes(uint32_t axesMask) noexcept override
    {
        change().axes = axesMask;
    }
    uint32_t getAxes() const noexcept override
    {
        return typedParams().axes;
    }
    void setNbGroups(int64_t nbGroups) noexcept override
    {
        change().nbGroups = nbGroups;
    }
    int64_t getNbGroups() const noexcept override
    {
        return typedParams().nbGroups;
    }
    void setComputePrecision(nvinfer1::DataType type) noexcept override
    {
        // The CPU reference accumulates in double whatever is asked; the request is kept for other backends.
        change().computePrecision = type;
    }
    nvinfer1::DataType getComputePrecision() const noexcept override
    {
        return typedParams().computePrecision;
    }
    bool isV2() const noexcept override
    {
        return mV2;
    }
    //! Marks a layer INetworkDefinition::addNormalizationV2 made (it computes as the other form does).
    void markV2()
    {
        mV2 = true;
    }

private:
    NormalizationParams& change()
    {
        network().invalidate();
        return mutableParams();
    }

    bool mV2{false};
};

} // namespace kiln::network
