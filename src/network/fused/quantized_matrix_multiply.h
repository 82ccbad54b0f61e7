// A product of quantized data and constant quantized weights, INT8 or FP8 E4M3 alike, that the quantized matrix
// multiply fusion pass (plan/passes/quantized_matrix_multiply_fusion.h) made of TensorRT's explicit quantization
// pattern for fully connected layers (BERT's and ViT's projections): DQ(x) -> matrix multiply by constant weights ->
// [+ bias] -> [activation] -> [Q]. No network holds one: only plans do, and the inspector calls the kind
// "QuantizedMatrixMultiply". The weights' type (quantizedType(): kINT8 or kFP8) is the input's, and the output's where
// the layer quantizes it:
//
//   x'  = dequantize(x, inputScale)                       x: [batch..., M, K] of quantizedType() (ONNX's rule)
//   W'  = dequantize(weights[n], weightScales[n])         weights: [N, K], row n the weights of output column n
//                                                         (W' is the transpose of the product's [K, N] operand)
//   y   = x' W'^T + bias                                  y: [batch..., M, N]; bias FP32 [N] or none
//   y   = activation(y)                                   where activates (IActivationLayer's alpha and beta)
//   out = quantize(y, outputScale)                        quantizedType() where outputScale > 0 (ONNX's rule); else
//                                                         y in floatType (FLOAT; HALF in FP16 chains where the
//                                                         backend writes it)
//
// This is what the layers it replaces compute: the pass fuses only where the quantized weights and their scales give
// back every weight the product held bit for bit, and the bias is the constant the sum added. A kernel that sums the
// INT8 products in INT32 differs only by the rounding of the FP32 sums it replaces; FP8 products sum in FP32 in
// another order, and an FP16 layer rounds only its output where the replaced layers rounded each step.
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
    WeightsBuffer weights;      //!< INT8 or FP8 [N, K]
    WeightsBuffer weightScales; //!< FLOAT [N]: one per output column
    WeightsBuffer bias;         //!< FLOAT [N], or empty
    float inputScale{1.0F};
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    //! > 0: the output is quantizedType(), quantized by this scale; 0: it is floatType.
    float outputScale{0.0F};
    //! The type of the output where the layer does not quantize it: FLOAT, or HALF.
    nvinfer1::DataType floatType{nvinfer1::DataType::kFLOAT};

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
        field(self.floatType, "float type");
    }

    //! K: the length of each column's weights.
    int64_t inner() const
    {
        return columns > 0 ? weights.count() / columns : 0;
    }
    //! The type of the input, the weights and a quantized output: kINT8 or kFP8.
    nvinfer1::DataType quantizedType() const
    {
        return weights.type();
    }
    //! The output type: quantizedType() where the layer quantizes its result, else floatType.
    nvinfer1::DataType outputType() const
    {
        return outputScale > 0.0F ? quantizedType() : floatType;
    }
    ActivationParams activationParams() const;

    //! The rule above, on the plan's records (a plan read back is checked with it): the input's type and last
    //! extent, the weights' types, counts and scales, the bias.
    bool infer(InferenceContext& ctx) const override;

    //! The FP32 weights W' [K, N] the replaced product multiplied by: weights dequantized and transposed back.
    std::vector<float> dequantizedWeights() const;
};

} // namespace kiln::network
