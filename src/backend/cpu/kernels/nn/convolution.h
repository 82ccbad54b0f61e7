// IConvolutionLayer (and ONNX Conv): N-d grouped, strided, dilated, padded convolution.
//   input  [N, C, spatial...]        (1, 2 or 3 spatial axes; any number works)
//   kernel [K, C / nbGroups, kernelSize...]
//   bias   [K], or empty (count 0) for none
//   output [N, K, convolutionOutputShape(...)]
// Padding contributes zeros. Sums accumulate in double.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

//! TensorRT's IConvolutionLayer parameters. Empty stride / padding / dilation mean TensorRT's defaults (1, 0, 1)
//! on every spatial axis.
struct ConvolutionParams
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

//! [N, nbOutputMaps, O...] for an input of `inputShape`; throws std::invalid_argument on inconsistent parameters
//! (rank, channels not divisible by groups, window larger than the padded input).
Shape convolutionOutputShape(Shape const& inputShape, ConvolutionParams const& params);

//! Writes `output` (kFLOAT, kHALF or kBF16, shape from convolutionOutputShape). `input`, `kernel` and `bias` are
//! floating-point of any of those types. Throws std::invalid_argument on inconsistent shapes or types.
void runConvolution(ConvolutionParams const& params, ConstTensorView const& input, ConstTensorView const& kernel,
    ConstTensorView const& bias, TensorView const& output);

} // namespace kiln::cpu
