// cuBLASLt's first heuristic choice for a product its descriptors describe, the one the quantized products (Int8Gemm,
// Fp8Gemm) run: their shapes are fixed per layer and run, so they take the heuristic's choice without timing.
#pragma once

#include <cublasLt.h>

#include <optional>

namespace kiln::cuda
{

//! The first algorithm cuBLASLt's heuristic offers for D = op(A) op(B) (C laid out as `c`) within
//! kMaxGemmWorkspaceBytes of workspace and with operands aligned to 256 bytes (its default assumption); nullopt where
//! it offers none. Throws std::runtime_error where cuBLASLt fails otherwise.
std::optional<cublasLtMatmulHeuristicResult_t> firstAlgorithm(cublasLtHandle_t handle, cublasLtMatmulDesc_t matmul,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d);

} // namespace kiln::cuda
