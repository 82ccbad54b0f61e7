// How IMatrixMultiplyLayer's operands map onto one strided-batched column-major GEMM, the form
// cuBLAS and cuBLASLt compute. The layer's row-major C = op0(A) op1(B) is, read column-major,
// C^T = op1(B)^T op0(A)^T: the library's first operand is the layer's second input. Plain C++
// without CUDA, so that the mapping is tested on machines without a GPU.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

#include <cstdint>

namespace kiln::cuda
{

//! One operand as the library stores it: a column-major rows x cols matrix (before its transpose) with leading
//! dimension `ld`, consecutive matrices of the batch `batchStride` elements apart (0: one matrix for every batch).
struct GemmMatrix
{
    int64_t rows{0};
    int64_t cols{0};
    int64_t ld{0};
    int64_t batchStride{0};
    bool transposed{false};
};

struct GemmGeometry
{
    int64_t m{0}; //!< rows of each output matrix (1 when the first input is a vector)
    int64_t n{0}; //!< columns of each output matrix (1 when the second input is a vector)
    int64_t k{0}; //!< the extent the product sums over
    int64_t batches{1};
    GemmMatrix first;  //!< the library's A: the layer's second input
    GemmMatrix second; //!< the library's B: the layer's first input
    GemmMatrix output; //!< the library's C and D: n x m per batch
};

//! The GEMM that multiplies `input0` under `op0` by `input1` under `op1`. An operand repeated over the batch (its
//! batch extents all 1) gets a stride of 0; other partial broadcasts, and inner extents that differ, throw
//! std::invalid_argument. Where the second input is repeated over the trailing batch axes and the first is not
//! transposed, those axes fold into the rows: one product of their volume * m rows for each remaining batch.
GemmGeometry gemmGeometry(
    Shape const& input0, nvinfer1::MatrixOperation op0, Shape const& input1, nvinfer1::MatrixOperation op1);

} // namespace kiln::cuda
