// IPoolingLayer (and ONNX MaxPool / AveragePool / GlobalMaxPool / GlobalAveragePool): N-d pooling over the last
// windowSize.nbDims axes; every axis before them (batch, channels, ...) is pooled independently.
// Global pooling is a window equal to the spatial extent.
//   Empty stride / padding (nbDims 0) mean 1 and 0 on every spatial axis.
//   kMAX ignores padding. kAVERAGE divides by the overlap of the window with the unpadded input when
//   averageCountExcludesPadding, else by its overlap with the padded input (input plus pre/post padding).
//   kMAX_AVERAGE_BLEND gives (1 - blendFactor) * max + blendFactor * average.
//   A window that covers padding only (possible with large padding or kEXPLICIT_ROUND_UP) yields 0 for its max part
//   and its average part.
// FP32, FP16 or BF16 tensors; kMAX also INT8 in and out (a max pooling the quantized fusion moved onto INT8).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/pooling.h"

namespace kiln::cpu
{

//! Writes `output` (floating-point, shape from backend::poolingOutputShape) from a floating-point `input`. Throws
//! std::invalid_argument on inconsistent shapes or types.
void runPooling(network::PoolingParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
