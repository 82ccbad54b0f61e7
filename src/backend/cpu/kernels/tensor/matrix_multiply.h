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

//! One operand seen as a batch of rows x cols matrices, its operation applied (a vector is a 1 x K row on the left, a
//! K x 1 column on the right): element (i, j) of a matrix lies i * rowStride + j * colStride after the matrix's start.
struct MatrixOperand
{
    Shape batch;
    int64_t rows{1};
    int64_t cols{1};
    int64_t rowStride{0};
    int64_t colStride{0};
};

//! Throws std::invalid_argument where `shape` has too few dims for `op`.
MatrixOperand describeMatrixOperand(Shape const& shape, nvinfer1::MatrixOperation op, bool isLeft);

Shape matrixMultiplyOutputShape(Shape const& input0, Shape const& input1, network::MatrixMultiplyParams const& params);

//! FP32, FP16 or BF16 operands and output (mixed allowed); products are summed in double and rounded once to the
//! output type. (A fused bias and ReLU are the plan's epilogue, which kernels/epilogue.h applies after this.)
void matrixMultiply(ConstTensorView const& input0, ConstTensorView const& input1, TensorView const& output,
    network::MatrixMultiplyParams const& params);

} // namespace kiln::cpu
