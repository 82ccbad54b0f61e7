// IFillLayer (ONNX Range as kLINSPACE; ConstantOfShape as fillWithValue).
//
// kLINSPACE: element at index (i0, i1, ...) = alpha + sum_d beta[d] * i_d (TensorRT's start and per-dim
// delta). FP32/FP16/BF16 compute in double; INT32/INT64 exactly in int64 (alpha and beta truncated to
// integers). The random operations are random_fill.h's.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "core/tensor_view.h"
#include "network/layers/fill.h"

#include <cstdint>

namespace kiln::cpu
{

//! kLINSPACE. Alpha is input 1 when given, else params.alpha. Beta is input 2 when given, one delta per output dim;
//! else params.beta, a single delta, so a static beta serves 0-D and 1-D outputs only (as in TensorRT).
void fill(LayerInputs const& inputs, TensorView const& output, network::FillParams const& params);

//! ConstantOfShape: every element becomes `value` (one element of the output's type), copied as bytes.
void fillWithValue(TensorView const& output, ConstTensorView const& value);

//! ONNX Range's length: max(ceil((limit - start) / delta), 0). Throws when delta is 0.
int64_t rangeLength(double start, double limit, double delta);
int64_t rangeLength(int64_t start, int64_t limit, int64_t delta);

} // namespace kiln::cpu
