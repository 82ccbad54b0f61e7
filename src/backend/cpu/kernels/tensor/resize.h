// IResizeLayer (ONNX Resize, Upsample).
//
// The output shape is, in order of precedence: input 1 (a shape tensor read at run time), the output
// dimensions, one scale per dim (output extent = floor(input extent * scale), and the scale itself drives
// the coordinate mapping, as ONNX specifies), or the input's shape. Each output coordinate x maps to an
// input coordinate:
//   kHALF_PIXEL     (x + 0.5) / scale - 0.5
//   kASYMMETRIC     x / scale
//   kALIGN_CORNERS  x * (in - 1) / (out - 1)      (0 when out == 1)
// With selectorForSinglePixel = kUPPER an output extent of 1 maps to 0: kHALF_PIXEL + kUPPER is ONNX's
// "pytorch_half_pixel". kNEAREST rounds the coordinate with nearestRounding (kHALF_UP, kHALF_DOWN, kFLOOR,
// kCEIL); kLINEAR interpolates between the two neighbours of every resized dim (any number of dims);
// kCUBIC uses four neighbours per dim with cubicCoeff. Neighbours outside the input take the edge value,
// or with excludeOutside get weight 0 and the others are renormalised.
// kNEAREST copies bytes (every byte-addressable type); kLINEAR and kCUBIC read and write FP32/FP16/BF16.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "core/tensor_view.h"
#include "network/layers/resize.h"

namespace kiln::cpu
{

//! Resizes input 0 into `output`; input 1, when given, holds the output shape. The output shape and the scales are
//! backend/shared/resize_geometry.h's.
void resize(LayerInputs const& inputs, TensorView const& output, network::ResizeParams const& params);

} // namespace kiln::cpu
