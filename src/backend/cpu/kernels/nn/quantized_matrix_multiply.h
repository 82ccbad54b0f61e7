// The reference of a quantized matrix multiply (network::QuantizedMatrixMultiplyParams, whose header states the rule):
// computed as the layers it replaces compute, one after the other: the input dequantized into FP32, the product of
// kernels/tensor/matrix_multiply.h by the dequantized weights, the bias added and the activation applied in FP32, the
// result quantized to INT8 or FP8 where the layer has an output scale (else rounded once into its FLOAT or HALF). It is
// the reference of the CPU fast path's INT8 kernel (oneDNN, fast/quantized_matrix_multiply.cpp) and of the CUDA
// backend's INT8 and FP8 ones, and gives the unfused FP32 layers' results bit for bit.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/quantized_matrix_multiply.h"

namespace kiln::cpu
{

//! `input` [batch..., M, K] of quantizedType(); `output` [batch..., M, N] of outputType(). Throws std::invalid_argument
//! on types or shapes the description does not allow.
void runQuantizedMatrixMultiply(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
