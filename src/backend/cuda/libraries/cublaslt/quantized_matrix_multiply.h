// The CUDA backend's QuantizedMatrixMultiply (network/fused/quantized_matrix_multiply.h states what it computes): the
// input's rows [batch... * M, K] times the weights [N, K], as one product of every row.
//
// INT8, in three steps on the context's stream:
//   1. where the rows cannot be read in place (K not a multiple of kInt8GemmAlignment, or the input not aligned as
//      cuBLASLt's integer kernels read it), a copy of them padded with zeros to that length;
//   2. one cuBLASLt product of the weights with the rows, summed exactly in INT32 on the tensor cores (Int8Gemm), the
//      N sums of each row adjacent, as the output is laid out;
//   3. the quantized convolution's epilogue (kernels/convolution/quantized_epilogue.h) over those sums, taking each
//      row for a position and each column for a map: inputScale * weightScales[n], the bias, the activation, and the
//      quantization (or FP32, or FP16 in FP16 builds).
// The sums are exact, so the result differs from the layers it replaced (and from the CPU reference, which computes
// them) only by the FP32 rounding of the scaled sum: an INT8 output may take the neighbouring step where the value
// lies within that rounding of a step's boundary. The padded rows and the sums live in the context's shared scratch.
//
// FP8 E4M3 (fp8_matrix_multiply_layer.cpp), through cuBLASLt's FP8 kernels (Fp8Gemm, fp8_gemm.h: Ada and Hopper),
// which take K and N only in multiples of 16 (the fusion rules leave other products unfused):
//   - direct form, where the layer has no activation but a ReLU: one cuBLASLt product with the bias (rounded to FP16)
//     and the ReLU in its epilogue, writing the output itself. Weights of one scale: that scale and the input's as its
//     per-tensor A and B scales, the output FP16, or FP8 through its D scale (1 / outputScale), or FP32 (no bias).
//     Weights of one scale per column (Model Optimizer's): inputScale * weightScales[n] and ones as its outer-vector
//     scales (cuBLAS 12.9 and later), the output FP16 or FP32 (no bias);
//   - otherwise (GELU and the other activations; an FP8 output of weights scaled per column; an FP32 output with a
//     bias; an output not aligned to 256 bytes; or no cuBLASLt kernel for the direct form), the product's FP32 sums
//     into scratch, and the INT8 layers' epilogue kernel over them: inputScale * weightScales[n], the FP32 bias, the
//     activation, the quantization into FP8 (or FP32 or FP16).
// cuBLASLt sums the FP8 products in FP32 in an order of its own, so the result differs from the CPU reference by the
// FP32 rounding of the sums (and of the FP16 bias in the direct form); an FP8 output may then take the neighbouring
// FP8 value where the result lies within that rounding of a rounding boundary (one FP8 step: 1/16 of the value).
// Rows not aligned to 256 bytes are copied to scratch first.
#pragma once

#include "backend/cuda/layer_kernels.h"
#include "network/fused/quantized_matrix_multiply.h"

namespace kiln::cuda
{

//! Whether the kernel runs `params`: INT8 or FP8 weights of N columns of K values (for FP8, N and K multiples of
//! kFp8GemmAlignment: cuBLASLt's FP8 rule), one FP32 scale per column, an FP32 bias of N values or none.
bool runsQuantizedMatrixMultiply(network::QuantizedMatrixMultiplyParams const& params);

//! Throws std::invalid_argument unless `input` is the layer's kLINEAR input ([..., K] of its quantized type) and
//! `output` its kLINEAR output ([..., N] of its output type).
void checkQuantizedProductTensors(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output);

//! The FP8 layer (fp8_matrix_multiply_layer.cpp).
std::unique_ptr<DeviceLayer> lowerFp8MatrixMultiply(
    network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context);

} // namespace kiln::cuda
