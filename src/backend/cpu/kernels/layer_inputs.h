// What the CPU backend's layer entry points (layer_kernels.h) share to read a layer's inputs and weights: optional
// inputs, shape-tensor values read at run time, scalars of any type, and weights viewed as tensors.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "network/layers/layer_utils.h"
#include "network/weights_buffer.h"

#include <cstdint>

namespace kiln::cpu
{

//! Whether optional input `index` was given (an input left empty arrives as a view without data).
bool hasInput(LayerInputs const& inputs, size_t index);

//! The integer values of a shape-tensor input (INT32 or INT64), read at run time.
Shape integerValues(ConstTensorView const& view);

//! Element `index` of a numeric tensor as a double, whatever its type (floating point, INT32/INT64, INT8, UINT8,
//! BOOL). Throws std::invalid_argument, starting with `kernel`'s name, for any other type.
double numberAt(ConstTensorView const& view, int64_t index, char const* kernel);

//! The first element of optional input `index` as a double when it was given, else `fixed` (the static parameter the
//! input overrides).
double numberOr(LayerInputs const& inputs, size_t index, double fixed, char const* kernel);

//! A weights buffer as a read-only view of the given shape (an empty view for no weights).
ConstTensorView weightsView(network::WeightsBuffer const& weights, Shape shape);

//! A (de)convolution's kernel weights viewed as `shape`, after checking they hold that many values: shape inference
//! lets weights for another group count through while the count is the default 1 (applications set it after add*).
ConstTensorView filterWeightsView(network::WindowedFilterParams const& params, Shape const& shape, char const* kind);

} // namespace kiln::cpu
