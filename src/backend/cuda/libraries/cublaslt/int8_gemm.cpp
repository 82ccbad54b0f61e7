#include "backend/cuda/libraries/cublaslt/int8_gemm.h"

#include "backend/cuda/libraries/cublaslt/first_algorithm.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

cublasLtMatrixLayout_t makeLayout(cudaDataType_t type, int64_t rows, int64_t columns, int64_t ld)
{
    cublasLtMatrixLayout_t layout = nullptr;
    checkCublasLt(
        cublasLtMatrixLayoutCreate(&layout, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(columns), ld),
        "describing an INT8 product's matrix");
    return layout;
}

void checkGeometry(int64_t m, int64_t n, int64_t k, int64_t ldd)
{
    bool const positive = m > 0 && n > 0 && k > 0 && ldd >= m;
    bool const aligned = k % kInt8GemmAlignment == 0 && ldd % kInt8GemmAlignment == 0;
    // cuBLASLt takes 32-bit extents; the integer kernels index bytes with them.
    int64_t const limit = std::numeric_limits<int32_t>::max();
    if (!positive || !aligned || m > limit || n > limit || k > limit || ldd > limit)
    {
        throw std::invalid_argument("INT8 product: m " + std::to_string(m) + ", n " + std::to_string(n) + ", k "
            + std::to_string(k) + ", ldd " + std::to_string(ldd) + " are not positive, padded to "
            + std::to_string(kInt8GemmAlignment) + " and below 2^31 as the integer kernels need");
    }
}

} // namespace

Int8Gemm::Int8Gemm(int64_t m, int64_t n, int64_t k, int64_t ldd, cublasLtHandle_t handle)
{
    checkGeometry(m, n, k, ldd);
    try
    {
        checkCublasLt(cublasLtMatmulDescCreate(&mMatmul, CUBLAS_COMPUTE_32I, CUDA_R_32I), "creating an INT8 product");
        cublasOperation_t const transposed = CUBLAS_OP_T;
        checkCublasLt(
            cublasLtMatmulDescSetAttribute(mMatmul, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof(transposed)),
            "transposing an INT8 product's A");
        mA = makeLayout(CUDA_R_8I, k, m, k);
        mB = makeLayout(CUDA_R_8I, k, n, k);
        mD = makeLayout(CUDA_R_32I, m, n, ldd);

        std::optional<cublasLtMatmulHeuristicResult_t> const choice = firstAlgorithm(handle, mMatmul, mA, mB, mD, mD);
        if (!choice)
        {
            throw std::runtime_error("INT8 product: cuBLASLt has no algorithm for " + std::to_string(m) + " x "
                + std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n) + " on this GPU");
        }
        mAlgorithm = choice->algo;
        mWorkspaceBytes = choice->workspaceSize;
    }
    catch (...)
    {
        release();
        throw;
    }
}

Int8Gemm::~Int8Gemm()
{
    release();
}

void Int8Gemm::release()
{
    for (cublasLtMatrixLayout_t layout : {mA, mB, mD})
    {
        if (layout != nullptr)
        {
            cublasLtMatrixLayoutDestroy(layout);
        }
    }
    if (mMatmul != nullptr)
    {
        cublasLtMatmulDescDestroy(mMatmul);
    }
    mA = mB = mD = nullptr;
    mMatmul = nullptr;
}

void Int8Gemm::run(
    cublasLtHandle_t handle, int8_t const* a, int8_t const* b, int32_t* d, void* workspace, cudaStream_t stream) const
{
    int32_t const one = 1;
    int32_t const zero = 0;
    checkCublasLt(cublasLtMatmul(handle, mMatmul, &one, a, mA, b, mB, &zero, d, mD, d, mD, &mAlgorithm, workspace,
                      mWorkspaceBytes, stream),
        "running an INT8 product");
}

} // namespace kiln::cuda
