// IElementWiseLayer: a binary operation with broadcasting (equal ranks, extents equal or 1).
#pragma once

#include "network/layer.h"

namespace kiln::network
{

struct ElementWiseParams final
    : LayerParamsOf<ElementWiseParams, nvinfer1::LayerType::kELEMENTWISE, nvinfer1::IElementWiseLayer>
{
    nvinfer1::ElementWiseOperation operation{nvinfer1::ElementWiseOperation::kSUM};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.operation, "element-wise operation");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES_UNBROADCAST;
    }
};

class ElementWiseLayer final : public LayerBase<nvinfer1::IElementWiseLayer, ElementWiseParams>
{
public:
    using LayerBase::LayerBase;
    void setOperation(nvinfer1::ElementWiseOperation op) noexcept override;
    nvinfer1::ElementWiseOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
};

//! The broadcast shape of two inputs of equal rank, or a message why they do not broadcast.
bool broadcastShapes(InferenceContext& ctx, int32_t first, int32_t second, std::vector<Dim>& out);

//! The extent two extents broadcast to, once their constants are known to broadcast: the other where one is 1, 0
//! where one is 0, else the larger (they are equal at run time, or one of them is 1).
Dim broadcastExtent(Dim a, Dim b);

} // namespace kiln::network
