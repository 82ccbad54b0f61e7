// IMatrixMultiplyLayer (ONNX MatMul; Gemm once its transposes are folded into the operations).
//
// op(input) is the operand: kNONE uses the last two dims as a matrix, kTRANSPOSE swaps them, kVECTOR
// takes the last dim as a vector. Remaining leading dims are batch dims: both operands must have as many,
// and an extent of 1 broadcasts. Output: batch + {M, N} (matrix*matrix), + {M} (matrix*vector),
// + {N} (vector*matrix), or batch alone (vector*vector).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/matrix_multiply.h"

namespace kiln::cpu
{

Shape matrixMultiplyOutputShape(Shape const& input0, Shape const& input1, network::MatrixMultiplyParams const& params);

//! FP32, FP16 or BF16 operands and output (mixed allowed); products are summed in double and rounded once to the
//! output type. (A fused bias and ReLU are the plan's epilogue, which kernels/epilogue.h applies after this.)
void matrixMultiply(ConstTensorView const& input0, ConstTensorView const& input1, TensorView const& output,
    network::MatrixMultiplyParams const& params);

} // namespace kiln::cpu
