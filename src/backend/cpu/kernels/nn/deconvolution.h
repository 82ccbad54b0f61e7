// IDeconvolutionLayer (and ONNX ConvTranspose): N-d grouped, strided, dilated transposed convolution.
//   input  [N, C, spatial...]
//   kernel [C, K / nbGroups, kernelSize...]   (the layer's kernel weights, in TensorRT's and ONNX's layout: input
//                                              channels first)
//   bias   [K], or empty (count 0) for none   (the layer's bias weights)
//   output [N, K, deconvolutionOutputShape(...)]
// Empty stride / padding / dilation (nbDims 0) mean 1, 0, 1 on every axis. A negative postPadding grows the output
// (how ONNX's output_padding maps here).
// Each input element scatters input * kernel onto output positions i * stride + k * dilation - prePadding;
// the kernel gathers those contributions per output element, summing in double.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/convolution.h"

namespace kiln::cpu
{

//! [N, nbOutputMaps, O...]; throws std::invalid_argument on inconsistent parameters.
Shape deconvolutionOutputShape(Shape const& inputShape, network::DeconvolutionParams const& params);

//! Writes `output` (floating-point, shape from deconvolutionOutputShape). Throws std::invalid_argument on
//! inconsistent shapes, weight counts or types.
void runDeconvolution(
    network::DeconvolutionParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
