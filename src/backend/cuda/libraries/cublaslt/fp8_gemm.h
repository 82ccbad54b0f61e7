// One product of FP8 E4M3 matrices through cuBLASLt's FP8 tensor-core kernels (Ada and Hopper), summed in FP32:
//     D = dScale * epilogue(aScale * bScale * A^T B [+ bias])
//     A: [k, m], B: [k, n], D: [m, n], each column-major (a column's values adjacent), ldd = m
// so that with A holding one column of k weights per output column and B one row of k inputs per output row, D is
// the output laid out row-major, its m values of a row adjacent. cuBLASLt's FP8 kernels take only this
// transposed-by-untransposed ("TN") form, FP32 compute and scales, k and the leading dimensions multiples of 16
// (kFp8GemmAlignment) and operands aligned to 16 bytes; D is FP32, FP16 or FP8 E4M3 (with C, unread, FP16 then).
// The scales are device pointers, read when the product runs: to one FP32 each (per-tensor scaling), or to a vector
// of m FP32 values for A and one of n for B (cuBLASLt's outer-vector scaling, cuBLAS 12.9 and later: D[i][j] is
// scaled by aScale[i] * bScale[j]; FP32 and FP16 outputs only).
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

namespace kiln::cuda
{

//! What k, m (the output's row length) and the leading dimensions must be multiples of.
constexpr int64_t kFp8GemmAlignment = 16;

//! The bytes every scale pointer must be aligned to: cuBLASLt (13.1, on an H200) answers a product whose scales lie
//! 4 or 8 bytes apart in one buffer with NOT_SUPPORTED when it runs, though its heuristic offers algorithms for it.
constexpr size_t kFp8ScaleAlignment = 16;

//! The output and cuBLASLt's epilogue of one FP8 product. Every pointer is device memory, or null for none.
struct Fp8GemmOutput
{
    cudaDataType_t type{CUDA_R_32F}; //!< CUDA_R_32F, CUDA_R_16F or CUDA_R_8F_E4M3
    float const* aScale{nullptr};    //!< multiplies the product; none: 1
    float const* bScale{nullptr};    //!< multiplies the product; none: 1
    float const* dScale{nullptr};    //!< multiplies the result before an E4M3 output rounds it; none: 1
    void const* bias{nullptr};       //!< m FP16 values added to each row (FP16 and E4M3 outputs only)
    bool relu{false};
    bool outerVectors{false}; //!< aScale and bScale point to m and n values (FP32 and FP16 outputs, no dScale)
};

class Fp8Gemm
{
public:
    //! Describes the product and takes cuBLASLt's first heuristic choice for it. m, n, k must be positive, k and m
    //! multiples of kFp8GemmAlignment, the scales aligned to kFp8ScaleAlignment, and `output` one of the
    //! combinations above; throws std::invalid_argument otherwise, and std::runtime_error where cuBLASLt has no
    //! algorithm for it (a GPU before Ada has none).
    Fp8Gemm(int64_t m, int64_t n, int64_t k, Fp8GemmOutput const& output, cublasLtHandle_t handle);
    ~Fp8Gemm();
    Fp8Gemm(Fp8Gemm const&) = delete;
    Fp8Gemm& operator=(Fp8Gemm const&) = delete;

    //! The workspace run() needs.
    size_t workspaceBytes() const
    {
        return mWorkspaceBytes;
    }

    //! Queues the product on `stream`. a, b and d are device memory aligned to 256 bytes. Throws std::runtime_error
    //! naming cuBLASLt's status when it fails.
    void run(cublasLtHandle_t handle, uint8_t const* a, uint8_t const* b, void* d, void* workspace,
        cudaStream_t stream) const;

private:
    void describe(int64_t m, int64_t n, int64_t k, Fp8GemmOutput const& output);
    void release();

    cublasLtMatmulDesc_t mMatmul{nullptr};
    cublasLtMatrixLayout_t mA{nullptr};
    cublasLtMatrixLayout_t mB{nullptr};
    cublasLtMatrixLayout_t mC{nullptr};
    cublasLtMatrixLayout_t mD{nullptr};
    cublasLtMatmulAlgo_t mAlgorithm{};
    size_t mWorkspaceBytes{0};
    bool mFp8Output{false};
};

} // namespace kiln::cuda
