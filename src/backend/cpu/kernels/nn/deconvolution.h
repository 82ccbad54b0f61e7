// IDeconvolutionLayer (and ONNX ConvTranspose): N-d grouped, strided, dilated transposed convolution.
//   input  [N, C, spatial...]
//   kernel [C, K / nbGroups, kernelSize...]   (TensorRT's and ONNX's layout: input channels first)
//   bias   [K], or empty (count 0) for none
//   output [N, K, deconvolutionOutputShape(...)]
// Each input element scatters input * kernel onto output positions i * stride + k * dilation - prePadding;
// the kernel gathers those contributions per output element, summing in double.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

//! TensorRT's IDeconvolutionLayer parameters. Empty stride / padding / dilation mean 1, 0, 1 on every axis.
//! A negative postPadding grows the output (how ONNX's output_padding maps here).
struct DeconvolutionParams
{
    int64_t nbOutputMaps{0};
    Shape kernelSize;
    Shape stride;
    Shape prePadding;
    Shape postPadding;
    Shape dilation;
    int64_t nbGroups{1};
    nvinfer1::PaddingMode paddingMode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
};

//! [N, nbOutputMaps, O...]; throws std::invalid_argument on inconsistent parameters.
Shape deconvolutionOutputShape(Shape const& inputShape, DeconvolutionParams const& params);

//! Writes `output` (floating-point, shape from deconvolutionOutputShape). Throws std::invalid_argument on
//! inconsistent shapes or types.
void runDeconvolution(DeconvolutionParams const& params, ConstTensorView const& input, ConstTensorView const& kernel,
    ConstTensorView const& bias, TensorView const& output);

} // namespace kiln::cpu
