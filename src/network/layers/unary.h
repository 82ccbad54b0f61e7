// IUnaryLayer, IIdentityLayer, ICastLayer and IShapeLayer: one input, element-wise or shape-only outputs.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct UnaryParams final : LayerParamsOf<UnaryParams, nvinfer1::LayerType::kUNARY, nvinfer1::IUnaryLayer>
{
    nvinfer1::UnaryOperation operation{nvinfer1::UnaryOperation::kEXP};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.operation, "unary operation");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES;
    }
};

class UnaryLayer final : public LayerBase<nvinfer1::IUnaryLayer, UnaryParams>
{
public:
    using LayerBase::LayerBase;
    void setOperation(nvinfer1::UnaryOperation op) noexcept override
    {
        network().invalidate();
        mutableParams().operation = op;
    }
    nvinfer1::UnaryOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
};

//! Identity copies its input; its output type may be changed with setOutputType (a conversion).
struct IdentityParams final : LayerParamsOf<IdentityParams, nvinfer1::LayerType::kIDENTITY, nvinfer1::IIdentityLayer>
{
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class IdentityLayer final : public LayerBase<nvinfer1::IIdentityLayer, IdentityParams>
{
public:
    using LayerBase::LayerBase;
};

struct CastParams final : LayerParamsOf<CastParams, nvinfer1::LayerType::kCAST, nvinfer1::ICastLayer>
{
    nvinfer1::DataType toType{nvinfer1::DataType::kFLOAT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.toType, "cast type");
    }

    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class CastLayer final : public LayerBase<nvinfer1::ICastLayer, CastParams>
{
public:
    using LayerBase::LayerBase;
    void setToType(nvinfer1::DataType toType) noexcept override
    {
        network().invalidate();
        mutableParams().toType = toType;
    }
    nvinfer1::DataType getToType() const noexcept override
    {
        return typedParams().toType;
    }
};

//! The input's dimensions as a 1-D INT64 shape tensor.
struct ShapeParams final : LayerParamsOf<ShapeParams, nvinfer1::LayerType::kSHAPE, nvinfer1::IShapeLayer>
{
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class ShapeLayer final : public LayerBase<nvinfer1::IShapeLayer, ShapeParams>
{
public:
    using LayerBase::LayerBase;
};

} // namespace kiln::network
