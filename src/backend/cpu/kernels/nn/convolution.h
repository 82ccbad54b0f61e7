// IConvolutionLayer (and ONNX Conv): N-d grouped, strided, dilated, padded convolution.
//   input  [N, C, spatial...]        (1, 2 or 3 spatial axes; any number works)
//   kernel [K, C / nbGroups, kernelSize...]   (the layer's kernel weights)
//   bias   [K], or empty (count 0) for none   (the layer's bias weights)
//   output [N, K, convolutionOutputShape(...)]
// Empty stride / padding / dilation (nbDims 0) mean TensorRT's defaults (1, 0, 1) on every spatial axis.
// Padding contributes zeros. Sums accumulate in double.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/convolution.h"

namespace kiln::cpu
{

//! [N, nbOutputMaps, O...] for an input of `inputShape`; throws std::invalid_argument on inconsistent parameters
//! (rank, channels not divisible by groups, window larger than the padded input).
Shape convolutionOutputShape(Shape const& inputShape, network::ConvolutionParams const& params);

//! Writes `output` (kFLOAT, kHALF or kBF16, shape from convolutionOutputShape). `input` and the layer's weights are
//! floating-point of any of those types. Throws std::invalid_argument on inconsistent shapes, weight counts or
//! types.
void runConvolution(network::ConvolutionParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
