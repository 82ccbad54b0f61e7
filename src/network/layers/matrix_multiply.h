// IMatrixMultiplyLayer: batched matrix (or vector) products with broadcast batch dimensions.
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

struct MatrixMultiplyParams final
    : LayerParamsOf<MatrixMultiplyParams, nvinfer1::LayerType::kMATRIX_MULTIPLY, nvinfer1::IMatrixMultiplyLayer>
{
    nvinfer1::MatrixOperation op0{nvinfer1::MatrixOperation::kNONE};
    nvinfer1::MatrixOperation op1{nvinfer1::MatrixOperation::kNONE};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.op0, "operation 0");
        field(self.op1, "operation 1");
    }

    bool infer(InferenceContext& ctx) const override;
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
