// IReduceLayer: sum, product, max, min or average over the axes set in a bit mask; reduced dims are kept as
// extent 1 or removed.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct ReduceParams final : LayerParamsOf<ReduceParams, nvinfer1::LayerType::kREDUCE, nvinfer1::IReduceLayer>
{
    nvinfer1::ReduceOperation operation{nvinfer1::ReduceOperation::kSUM};
    uint32_t reduceAxes{0};
    bool keepDimensions{false};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.operation, "reduce operation");
        field(self.reduceAxes, "reduce axes");
        field(self.keepDimensions, "keep dimensions");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kREADS_ANY;
    }
};

class ReduceLayer final : public LayerBase<nvinfer1::IReduceLayer, ReduceParams>
{
public:
    using LayerBase::LayerBase;
    void setOperation(nvinfer1::ReduceOperation op) noexcept override
    {
        change().operation = op;
    }
    nvinfer1::ReduceOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
    void setReduceAxes(uint32_t reduceAxes) noexcept override
    {
        change().reduceAxes = reduceAxes;
    }
    uint32_t getReduceAxes() const noexcept override
    {
        return typedParams().reduceAxes;
    }
    void setKeepDimensions(bool keepDimensions) noexcept override
    {
        change().keepDimensions = keepDimensions;
    }
    bool getKeepDimensions() const noexcept override
    {
        return typedParams().keepDimensions;
    }

private:
    ReduceParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
