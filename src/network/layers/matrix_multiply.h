// IMatrixMultiplyLayer: batched matrix (or vector) products with broadcast batch dimensions.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct MatrixMultiplyParams final : LayerParams
{
    nvinfer1::MatrixOperation op0{nvinfer1::MatrixOperation::kNONE};
    nvinfer1::MatrixOperation op1{nvinfer1::MatrixOperation::kNONE};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kMATRIX_MULTIPLY;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        plan::writeEnum(writer, op0);
        plan::writeEnum(writer, op1);
    }
    bool read(plan::ByteReader& reader) override
    {
        return plan::readEnum(reader, op0, "operation 0") && plan::readEnum(reader, op1, "operation 1");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<MatrixMultiplyParams>(*this);
    }
};

class MatrixMultiplyLayer final : public LayerBase<nvinfer1::IMatrixMultiplyLayer, MatrixMultiplyParams>
{
public:
    using LayerBase::LayerBase;
    void setOperation(int32_t index, nvinfer1::MatrixOperation op) noexcept override;
    nvinfer1::MatrixOperation getOperation(int32_t index) const noexcept override
    {
        return index == 0 ? typedParams().op0 : typedParams().op1;
    }
};

} // namespace kiln::network
