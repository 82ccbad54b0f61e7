// Output sizes and effective padding of sliding-window layers (convolution, pooling, deconvolution), following
// TensorRT's PaddingMode formulas. Shared so that every layer, its output-shape function and both backends agree.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::backend
{

//! Per spatial axis: the output extent and the padding actually applied (SAME modes ignore the explicit padding).
struct WindowGeometry
{
    Shape outputSize;
    Shape prePadding;
    Shape postPadding;
};

//! `values` if it has `rank` entries, `rank` copies of `defaultValue` if it is empty; otherwise throws
//! std::invalid_argument naming `name`. Lets a layer leave stride, padding and dilation empty (nbDims 0).
Shape spatialParameter(nvinfer1::Dims const& values, size_t rank, int64_t defaultValue, char const* name);

//! Convolution and pooling. `window` is the dilated window extent DK = 1 + dilation * (size - 1).
//!   kEXPLICIT_ROUND_DOWN: O = floor((I + B + A - DK) / S) + 1
//!   kEXPLICIT_ROUND_UP:   O = ceil((I + B + A - DK) / S) + 1
//!   kSAME_UPPER:          O = ceil(I / S), P = floor((I - 1) / S) * S + DK - I, B = floor(P / 2), A = P - B
//!   kSAME_LOWER:          O = ceil(I / S), same P, A = floor(P / 2), B = P - A
//! P is clamped at 0 (as ONNX's auto_pad does), which only matters when DK < S. An empty input axis gives O = 0.
//! Throws std::invalid_argument when the window is larger than the padded input or a stride is not positive.
WindowGeometry forwardWindowGeometry(Shape const& inputSize, Shape const& window, Shape const& stride,
    Shape const& prePadding, Shape const& postPadding, nvinfer1::PaddingMode mode);

//! Deconvolution (transposed convolution). B and A crop the full output (I - 1) * S + DK.
//!   kEXPLICIT_ROUND_DOWN, kEXPLICIT_ROUND_UP: O = (I - 1) * S + DK - (B + A)
//!   kSAME_UPPER:  O = min(I * S, (I - 1) * S + DK), P = max(DK - S, 0), B = floor(P / 2), A = P - B
//!   kSAME_LOWER:  same O and P, A = floor(P / 2), B = P - A
//! A negative explicit post-padding extends the output (ONNX ConvTranspose's output_padding); the extension holds
//! only the bias. An empty input axis gives O = 0.
WindowGeometry transposedWindowGeometry(Shape const& inputSize, Shape const& window, Shape const& stride,
    Shape const& prePadding, Shape const& postPadding, nvinfer1::PaddingMode mode);

//! DK = 1 + dilation * (size - 1) per axis.
Shape dilatedWindow(Shape const& windowSize, Shape const& dilation);

} // namespace kiln::backend
