// The CUDA backend's QuantizedMatrixMultiply (network/fused/quantized_matrix_multiply.h states what it computes): the
// INT8 input's rows [batch... * M, K] times the INT8 weights [N, K], as one product of every row, in three steps on
// the context's stream:
//   1. where the rows cannot be read in place (K not a multiple of kInt8GemmAlignment, or the input not aligned as
//      cuBLASLt's integer kernels read it), a copy of them padded with zeros to that length;
//   2. one cuBLASLt product of the weights with the rows, summed exactly in INT32 on the tensor cores (Int8Gemm), the
//      N sums of each row adjacent, as the output is laid out;
//   3. the quantized convolution's epilogue (kernels/convolution/quantized_epilogue.h) over those sums, taking each
//      row for a position and each column for a map: inputScale * weightScales[n], the bias, the activation, and the
//      quantization (or FP32).
// The sums are exact, so the result differs from the layers it replaced (and from the CPU reference, which computes
// them) only by the FP32 rounding of the scaled sum: an INT8 output may take the neighbouring step where the value
// lies within that rounding of a step's boundary. The padded rows and the sums live in the context's shared scratch.
#pragma once

#include "network/fused/quantized_matrix_multiply.h"

namespace kiln::cuda
{

//! Whether the kernel runs `params`: INT8 weights of N columns of K values, one FP32 scale per column, an FP32 bias of
//! N values or none.
bool runsQuantizedMatrixMultiply(network::QuantizedMatrixMultiplyParams const& params);

} // namespace kiln::cuda
