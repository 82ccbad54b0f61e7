// A convolution on INT8 data that the quantized fusion pass (plan/passes/quantized_fusion.h) made of TensorRT's
// explicit quantization pattern: DQ(x) -> convolution -> [+ residual] -> [activation, self-gated or not] -> [Q]. No
// network holds one: only plans do, and the inspector calls the kind "QuantizedConvolution".
//
//   x'  = x * inputScale                                  x: INT8 [N, C, spatial...], dequantized (ONNX's rule)
//   W'  = kernel[k] * kernelScales[k]                     kernel: INT8 [K, C / groups, k...], one scale per map k
//   y   = convolution(x', W') + bias                      the convolution's window parameters; bias FP32 [K] or none
//   y   = y + residual                                    where addsResidual: the layer's second input, shaped as y:
//                                                         FLOAT, or INT8 dequantized by residualScale (> 0)
//   y   = activation(y)                                   where activates (IActivationLayer's alpha and beta);
//         or y * activation(y)                            where also selfGated (SiLU, hard-swish)
//   out = quantize(y, outputScale)                        INT8 where outputScale > 0 (ONNX's rule); else FLOAT y
//
// This is what the layers it replaces compute, with the dequantized weights holding exactly the values the
// convolution held: the pass fuses only where the INT8 weights and scales give them back bit for bit. A kernel that
// accumulates the INT8 products in INT32 differs only by the rounding of the FP32 sums it replaces.
#pragma once

#include "network/layers/convolution.h"

namespace kiln::network
{

//! The layer type of QuantizedConvolutionParams: past every nvinfer1::LayerType, as kPointwiseLayerType is.
inline constexpr nvinfer1::LayerType kQuantizedConvolutionLayerType = static_cast<nvinfer1::LayerType>(0x4B03);

struct QuantizedConvolutionParams final
    : LayerParamsOf<QuantizedConvolutionParams, kQuantizedConvolutionLayerType, PlanOnly>,
      WindowedFilterParams
{
    //! One FP32 scale per output map; the kernel (WindowedFilterParams::kernel) is INT8.
    WeightsBuffer kernelScales;
    float inputScale{1.0F};
    bool addsResidual{false};
    //! > 0: the residual is INT8, dequantized by this scale; 0: it is FLOAT.
    float residualScale{0.0F};
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    //! Where activates: y * activation(y), as a network writes SiLU or hard-swish (an activation and a product).
    bool selfGated{false};
    //! > 0: the output is INT8, quantized by this scale; 0: it is FLOAT.
    float outputScale{0.0F};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        filterFields(self, field);
        field(self.kernelScales, "kernel scales");
        field(self.inputScale, "input scale");
        field(self.addsResidual, "adds residual");
        field(self.residualScale, "residual scale");
        field(self.activates, "activation present");
        field(self.activation, "activation");
        field(self.alpha, "activation alpha");
        field(self.beta, "activation beta");
        field(self.selfGated, "activation self-gated");
        field(self.outputScale, "output scale");
    }

    //! The output type: INT8 where the layer quantizes its result, else FLOAT.
    nvinfer1::DataType outputType() const
    {
        return outputScale > 0.0F ? nvinfer1::DataType::kINT8 : nvinfer1::DataType::kFLOAT;
    }
    nvinfer1::DataType residualType() const
    {
        return residualScale > 0.0F ? nvinfer1::DataType::kINT8 : nvinfer1::DataType::kFLOAT;
    }

    //! The rule above, on the plan's records (a plan read back is checked with it): the inputs' types, the weights'
    //! types, counts and scales, the window and the output's shape.
    bool infer(InferenceContext& ctx) const override;

    //! The description of the same convolution on FP32 data: the dequantized kernel, the bias, the window.
    ConvolutionParams dequantizedConvolution() const;

    //! Over 4-D tensors the CUDA backend runs it on channels-last INT8 (the format pass checks), as FP16 convolutions.
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kSTARTS;
    }
};

} // namespace kiln::network
