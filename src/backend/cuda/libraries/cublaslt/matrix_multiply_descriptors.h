// cuBLASLt's description of one matrix multiply at one shape (matmul and matrix-layout
// descriptors, the fused epilogue), and the heuristic choice of an algorithm for it.
#pragma once

#include "backend/cuda/libraries/cublaslt/matrix_multiply_geometry.h"

#include <NvInferRuntimeBase.h>

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::cuda
{

//! The workspace cuBLASLt's algorithms may use, per layer: enough for its split-K reductions at the sizes where they
//! pay, small next to a context's activations.
constexpr size_t kMaxGemmWorkspaceBytes = size_t{4} << 20;

//! Throws std::runtime_error naming the layer kind, `what` cuBLASLt was doing and its status, when it failed.
void checkCublasLt(cublasStatus_t status, char const* what);

//! The alignment in bytes (a power of two up to 256) of what `address` points to: cuBLASLt's heuristics choose
//! among the algorithms that can read operands as aligned as that.
uint32_t addressAlignment(void const* address);

//! How the operands of one run are aligned, in the library's order (its A is the layer's second input).
struct GemmAlignments
{
    uint32_t first{256};
    uint32_t second{256};
    uint32_t output{256};

    bool operator==(GemmAlignments const&) const = default;
};

//! The fused epilogue as cuBLASLt applies it: relu(product + bias), either part optional.
struct GemmEpilogue
{
    void const* bias{nullptr}; //!< device memory, n values of the output's type per bias row; null for none
    bool relu{false};
    //! Whether each matrix of the batch adds a bias row of its own (n values after the previous matrix's), rather
    //! than all adding the one row.
    bool biasPerBatch{false};
};

class MatrixMultiplyDescriptors
{
public:
    MatrixMultiplyDescriptors() = default;
    ~MatrixMultiplyDescriptors();
    MatrixMultiplyDescriptors(MatrixMultiplyDescriptors const&) = delete;
    MatrixMultiplyDescriptors& operator=(MatrixMultiplyDescriptors const&) = delete;

    //! Describes `geometry` on FP32 or FP16 data (`type`; others throw std::invalid_argument), accumulated in FP32
    //! either way (CUBLAS_COMPUTE_32F: no TF32, so FP32 results agree with the CPU reference), with `epilogue`.
    void describe(GemmGeometry const& geometry, nvinfer1::DataType type, GemmEpilogue const& epilogue);

    //! cuBLASLt's first `count` heuristic choices for the described product, best first, among the algorithms that
    //! take operands aligned as `alignments` and at most `maxWorkspaceBytes` of workspace. Throws std::runtime_error
    //! where it has none.
    std::vector<cublasLtMatmulHeuristicResult_t> rankedAlgorithms(
        cublasLtHandle_t handle, GemmAlignments const& alignments, size_t maxWorkspaceBytes, int count) const;

    //! The heuristic's choice of rank `rank` (0: its first), or its last where it ranks fewer: the builder times the
    //! first few and keeps the rank of the fastest (product_timing.h).
    cublasLtMatmulHeuristicResult_t chooseAlgorithm(
        cublasLtHandle_t handle, GemmAlignments const& alignments, size_t maxWorkspaceBytes, int rank = 0) const;

    //! `choice` with K split into `splits` parts that run in parallel, their sums reduced in FP32 where the algorithm
    //! can, within `maxWorkspaceBytes`; none where it cannot be split so. A product of few output tiles leaves most of
    //! the GPU idle unless its K is split (ViT's and BERT's second MLP product: K 3072, 768 columns).
    std::optional<cublasLtMatmulHeuristicResult_t> splitAlgorithm(cublasLtHandle_t handle,
        cublasLtMatmulHeuristicResult_t const& choice, int32_t splits, size_t maxWorkspaceBytes) const;

    cublasLtMatmulDesc_t matmul{nullptr};
    cublasLtMatrixLayout_t first{nullptr};  //!< the library's A (the layer's second input)
    cublasLtMatrixLayout_t second{nullptr}; //!< the library's B (the layer's first input)
    cublasLtMatrixLayout_t output{nullptr}; //!< C and D

private:
    void release();

    GemmGeometry mGeometry; //!< what the descriptors describe, for error messages
};

} // namespace kiln::cuda
