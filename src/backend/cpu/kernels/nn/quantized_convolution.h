// The reference of a quantized convolution (network::QuantizedConvolutionParams, whose header states the rule):
// computed as the layers it replaces compute, one after the other: the input (and an INT8 residual) dequantized into
// FP32, the convolution of runConvolution on the dequantized weights, the residual added and the activation applied
// in FP32, the result quantized to INT8 where the layer has an output scale. It is the reference of the CPU fast
// path's INT8 kernel (oneDNN, fast/quantized_convolution.cpp) and gives the unfused layers' results bit for bit.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/quantized_convolution.h"

namespace kiln::cpu
{

//! `input` INT8 [N, C, spatial...]; `residual` nullptr or the output's shape, of the type residualType() says;
//! `output` of outputType(). Throws std::invalid_argument on types or shapes the description does not allow.
void runQuantizedConvolution(network::QuantizedConvolutionParams const& params, ConstTensorView const& input,
    ConstTensorView const* residual, TensorView const& output);

} // namespace kiln::cpu
