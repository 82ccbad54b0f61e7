// A product of INT8 data and constant INT8 weights that the quantized fusion pass (plan/passes/quantized_fusion.h)
// made of TensorRT's explicit quantization pattern for fully connected layers (BERT's and ViT's projections):
// DQ(x) -> matrix multiply by constant weights -> [+ bias] -> [activation] -> [Q]. No network holds one: only plans
// do, and the inspector calls the kind "QuantizedMatrixMultiply".
//
//   x'  = x * inputScale                                  x: INT8 [batch..., M, K], dequantized (ONNX's rule)
//   W'  = weights[n] * weightScales[n]                    weights: INT8 [N, K], row n the weights of output column
//                                                         n (W' is the transpose of the product's [K, N] operand)
//   y   = x' W'^T + bias                                  y: [batch..., M, N]; bias FP32 [N] or none
//   y   = activation(y)                                   where activates (IActivationLayer's alpha and beta)
//   out = quantize(y, outputScale)                        INT8 where outputScale > 0 (ONNX's rule); else FLOAT y
//
// This is what the layers it replaces compute: the pass fuses only where the INT8 weights and their scales give
// back every weight the product held bit for bit, and the bias is the constant the sum added. A kernel that sums the
// INT8 products in INT32 differs only by the rounding of the FP32 sums it replaces.
#pragma once

#include "network/layer.h"
#include "network/layers/activation.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

//! The layer type of QuantizedMatrixMultiplyParams: past every nvinfer1::LayerType, as kPointwiseLayerType is.
inline constexpr nvinfer1::LayerType kQuantizedMatrixMultiplyLayerType = static_cast<nvinfer1::LayerType>(0x4B04);

struct QuantizedMatrixMultiplyParams final
    : LayerParamsOf<QuantizedMatrixMultiplyParams, kQuantizedMatrixMultiplyLayerType, PlanOnly>
{
    int64_t columns{0};         //!< N
    WeightsBuffer weights;      //!< INT8 [N, K]
    WeightsBuffer weightScales; //!< FLOAT [N]: one per output column
    WeightsBuffer bias;         //!< FLOAT [N], or empty
    float inputScale{1.0F};
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    //! > 0: the output is INT8, quantized by this scale; 0: it is FLOAT.
    float outputScale{0.0F};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.columns, "columns");
        field(self.weights, "weights");
        field(self.weightScales, "weight scales");
        field(self.bias, "bias");
        field(self.inputScale, "input scale");
        field(self.activates, "activation present");
        field(self.activation, "activation");
        field(self.alpha, "activation alpha");
        field(self.beta, "activation beta");
        field(self.outputScale, "output scale");
    }

    //! K: the length of each column's weights.
    int64_t inner() const
    {
        return columns > 0 ? weights.count() / columns : 0;
    }
    //! The output type: INT8 where the layer quantizes its result, else FLOAT.
    nvinfer1::DataType outputType() const
    {
        return outputScale > 0.0F ? nvinfer1::DataType::kINT8 : nvinfer1::DataType::kFLOAT;
    }
    ActivationParams activationParams() const;

    //! The rule above, on the plan's records (a plan read back is checked with it): the input's type and last
    //! extent, the weights' types, counts and scales, the bias.
    bool infer(InferenceContext& ctx) const override;

    //! The FP32 weights W' [K, N] the replaced product multiplied by: weights dequantized and transposed back.
    std::vector<float> dequantizedWeights() const;
};

} // namespace kiln::network
