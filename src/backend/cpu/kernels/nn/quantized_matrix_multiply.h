// The reference of a quantized matrix multiply (network::QuantizedMatrixMultiplyParams, whose header states the rule):
// computed as the layers it replaces compute, one after the other: the input dequantized into FP32, the product of
// kernels/tensor/matrix_multiply.h by the dequantized weights, the bias added and the activation applied in FP32, the
// result quantized to INT8 where the layer has an output scale. It is the reference of the CPU fast path's INT8
// kernel (oneDNN, fast/quantized_matrix_multiply.cpp) and gives the unfused layers' results bit for bit.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/quantized_matrix_multiply.h"

namespace kiln::cpu
{

//! `input` INT8 [batch..., M, K]; `output` [batch..., M, N] of outputType(). Throws std::invalid_argument on types or
//! shapes the description does not allow.
void runQuantizedMatrixMultiply(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
