// Broadcast copy (ONNX Expand; TensorRT builds it from a slice with stride 0): the input, aligned on
// the right, is repeated along every output dim where it has extent 1 or no dim at all.
// (ONNX Tile is a kWRAP slice: see slice.h.) Copies bytes, so every byte-addressable type works.
#pragma once

#include "backend/cpu/tensor_view.h"

namespace kiln::cpu
{

//! ONNX Expand's shape rule: numpy broadcasting of the input shape with the requested shape.
Shape expandOutputShape(Shape const& input, Shape const& requested);

//! output.shape must be one the input broadcasts to (each input extent 1 or equal, aligned right).
void broadcastTo(ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
