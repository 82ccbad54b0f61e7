// IUnaryLayer, IIdentityLayer, ICastLayer and IShapeLayer: one input, element-wise or shape-only outputs.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct UnaryParams final : LayerParams
{
    nvinfer1::UnaryOperation operation{nvinfer1::UnaryOperation::kEXP};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kUNARY;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        plan::writeEnum(writer, operation);
    }
    bool read(plan::ByteReader& reader) override
    {
        return plan::readEnum(reader, operation, "unary operation");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<UnaryParams>(*this);
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
struct IdentityParams final : LayerParams
{
    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kIDENTITY;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter&) const override {}
    bool read(plan::ByteReader&) override
    {
        return true;
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<IdentityParams>(*this);
    }
};

class IdentityLayer final : public LayerBase<nvinfer1::IIdentityLayer, IdentityParams>
{
public:
    using LayerBase::LayerBase;
};

struct CastParams final : LayerParams
{
    nvinfer1::DataType toType{nvinfer1::DataType::kFLOAT};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kCAST;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        plan::writeEnum(writer, toType);
    }
    bool read(plan::ByteReader& reader) override
    {
        return plan::readEnum(reader, toType, "cast type");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<CastParams>(*this);
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
struct ShapeParams final : LayerParams
{
    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kSHAPE;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter&) const override {}
    bool read(plan::ByteReader&) override
    {
        return true;
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<ShapeParams>(*this);
    }
};

class ShapeLayer final : public LayerBase<nvinfer1::IShapeLayer, ShapeParams>
{
public:
    using LayerBase::LayerBase;
};

} // namespace kiln::network
