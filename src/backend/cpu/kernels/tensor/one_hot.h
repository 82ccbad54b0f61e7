// IOneHotLayer (ONNX OneHot).
//
// The output has the indices' shape with a new dim of extent `depth` (the value of the layer's input 2,
// read at run time) inserted at params.axis (in [-(rank + 1), rank]; -1 appends it). Element j along it
// is values[1] ("on") where the index equals j and values[0] ("off") elsewhere. Negative indices count
// from depth; indices outside [-depth, depth) give an all-off row, as ONNX specifies. Indices: INT32 or
// INT64; values: two elements of any byte-addressable type (the output's), copied as bytes.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/one_hot.h"

#include <cstdint>

namespace kiln::cpu
{

Shape oneHotOutputShape(Shape const& indices, int64_t depth, network::OneHotParams const& params);

void oneHot(ConstTensorView const& indices, ConstTensorView const& values, int64_t depth, TensorView const& output,
    network::OneHotParams const& params);

} // namespace kiln::cpu
