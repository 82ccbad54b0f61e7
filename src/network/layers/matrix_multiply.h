// IMatrixMultiplyLayer: batched matrix (or vector) products with broadcast batch dimensions.
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

//! What the builder fuses into a 2-D matrix multiply of a CUDA plan (never set through the API): the layer then
//! writes relu(product + bias), where a bias is given, as one cuBLASLt call instead of three layers.
struct MatrixMultiplyEpilogue
{
    WeightsBuffer bias; //!< one value per output column (the last output axis), in the layer's precision; or empty
    bool relu{false};

    bool any() const
    {
        return !bias.empty() || relu;
    }
};

struct MatrixMultiplyParams final : LayerParams
{
    nvinfer1::MatrixOperation op0{nvinfer1::MatrixOperation::kNONE};
    nvinfer1::MatrixOperation op1{nvinfer1::MatrixOperation::kNONE};
    MatrixMultiplyEpilogue epilogue;

    void storeWeightsAs(nvinfer1::DataType type) override
    {
        epilogue.bias = epilogue.bias.storedAs(type);
    }
    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kMATRIX_MULTIPLY;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override;
    bool read(plan::ByteReader& reader) override;
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
