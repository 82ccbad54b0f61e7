// One product of INT8 matrices summed exactly in INT32, through cuBLASLt's integer tensor-core kernels:
//     D = A^T * B      A: [k, m], B: [k, n], D: [m, n], each column-major (a column's values adjacent)
// so that with A and B holding one row of k values per output row and column (an im2col matrix and a filter), each
// D[i, j] is the dot product of row i and filter j. cuBLASLt multiplies INT8 matrices in column-major layouts only in
// this transposed-by-untransposed ("TN") form, with k and the leading dimensions multiples of 4; the caller pads
// them (kInt8GemmAlignment) with zeros, which add nothing.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

namespace kiln::cuda
{

//! What m, k and the leading dimensions are padded to: 16 bytes, the widest load of the integer kernels.
constexpr int64_t kInt8GemmAlignment = 16;

class Int8Gemm
{
public:
    //! Describes the product and takes cuBLASLt's first heuristic choice for it. m, n, k and ldd must be positive,
    //! k and ldd multiples of kInt8GemmAlignment, ldd >= m; throws std::invalid_argument otherwise, and
    //! std::runtime_error where cuBLASLt has no algorithm.
    Int8Gemm(int64_t m, int64_t n, int64_t k, int64_t ldd, cublasLtHandle_t handle);
    ~Int8Gemm();
    Int8Gemm(Int8Gemm const&) = delete;
    Int8Gemm& operator=(Int8Gemm const&) = delete;

    //! The workspace run() needs.
    size_t workspaceBytes() const
    {
        return mWorkspaceBytes;
    }

    //! Queues the product on `stream`. Every pointer is device memory aligned to 16 bytes. Throws std::runtime_error
    //! naming cuBLASLt's status when it fails.
    void run(cublasLtHandle_t handle, int8_t const* a, int8_t const* b, int32_t* d, void* workspace,
        cudaStream_t stream) const;

private:
    void release();

    cublasLtMatmulDesc_t mMatmul{nullptr};
    cublasLtMatrixLayout_t mA{nullptr};
    cublasLtMatrixLayout_t mB{nullptr};
    cublasLtMatrixLayout_t mD{nullptr};
    cublasLtMatmulAlgo_t mAlgorithm{};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
