// IMatrixMultiplyLayer (ONNX MatMul; Gemm once its transposes are folded into the operations).
//
// op(input) is the operand: kNONE uses the last two dims as a matrix, kTRANSPOSE swaps them, kVECTOR
// takes the last dim as a vector. Remaining leading dims are batch dims: both operands must have as many,
// and an extent of 1 broadcasts. Output: batch + {M, N} (matrix*matrix), + {M} (matrix*vector),
// + {N} (vector*matrix), or batch alone (vector*vector).
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

struct MatrixMultiply
{
    nvinfer1::MatrixOperation op0{nvinfer1::MatrixOperation::kNONE};
    nvinfer1::MatrixOperation op1{nvinfer1::MatrixOperation::kNONE};
    //! Epilogue (what the builder fuses in CUDA plans): `bias` (FP32, FP16 or BF16; one value per output column,
    //! both operands matrices) is added to every output row, then `relu` clamps negatives to 0 (NaN stays NaN).
    //! Both apply before the one rounding to the output type. A bias without data adds nothing.
    ConstTensorView bias{};
    bool relu{false};
};

Shape matrixMultiplyOutputShape(Shape const& input0, Shape const& input1, MatrixMultiply const& params);

//! FP32, FP16 or BF16 operands and output (mixed allowed); products are summed in double.
void matrixMultiply(
    ConstTensorView const& input0, ConstTensorView const& input1, TensorView const& output, MatrixMultiply const& params);

} // namespace kiln::cpu
