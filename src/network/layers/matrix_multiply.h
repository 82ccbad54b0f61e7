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

struct MatrixMultiplyParams final : LayerParamsOf<MatrixMultiplyParams, nvinfer1::LayerType::kMATRIX_MULTIPLY>
{
    nvinfer1::MatrixOperation op0{nvinfer1::MatrixOperation::kNONE};
    nvinfer1::MatrixOperation op1{nvinfer1::MatrixOperation::kNONE};
    MatrixMultiplyEpilogue epilogue;

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.op0, "operation 0");
        field(self.op1, "operation 1");
        field(self.epilogue.bias, "fused bias");
        field(self.epilogue.relu, "fused ReLU");
    }

    void storeWeightsAs(nvinfer1::DataType type) override
    {
        epilogue.bias = epilogue.bias.storedAs(type);
    }
    bool infer(InferenceContext& ctx) const override;
    //! Why a fused bias read from a plan cannot be right, or empty.
    std::string planError() const;
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
