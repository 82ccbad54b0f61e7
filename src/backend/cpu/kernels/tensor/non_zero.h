// INonZeroLayer (ONNX NonZero).
//
// The positions of input's non-zero elements (core/element_non_zero.h: -0.0 is zero, NaN is not), in row-major order
// of the elements, written as the columns of an [input rank, count] matrix of INT32 or INT64: element r of column j
// is coordinate r of the j-th non-zero element. `indices` is given with its capacity, [input rank, upper bound]: the
// matrix is written at its start, row r at r * count, as a tensor of shape [rank, count] lies. count is written to
// `count`, a 0-D INT32 or INT64 tensor. An index too large for INT32 indices is an error.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/non_zero.h"

namespace kiln::cpu
{

void nonZero(ConstTensorView const& input, TensorView const& indices, TensorView const& count);

} // namespace kiln::cpu
