#include "backend/cuda/libraries/cublaslt/fp8_gemm.h"

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
        "describing an FP8 product's matrix");
    return layout;
}

template <typename Value>
void setAttribute(cublasLtMatmulDesc_t matmul, cublasLtMatmulDescAttributes_t attribute, Value const& value)
{
    checkCublasLt(
        cublasLtMatmulDescSetAttribute(matmul, attribute, &value, sizeof(value)), "describing an FP8 product");
}

bool aligned(float const* scale)
{
    return reinterpret_cast<uintptr_t>(scale) % kFp8ScaleAlignment == 0;
}

void checkArguments(int64_t m, int64_t n, int64_t k, Fp8GemmOutput const& output)
{
    int64_t const limit = std::numeric_limits<int32_t>::max();
    bool const extents = m > 0 && n > 0 && k > 0 && m <= limit && n <= limit && k <= limit && k % kFp8GemmAlignment == 0
        && m % kFp8GemmAlignment == 0;
    if (!extents)
    {
        throw std::invalid_argument("FP8 product: m " + std::to_string(m) + ", n " + std::to_string(n) + ", k "
            + std::to_string(k) + " are not positive, below 2^31, with k and m multiples of "
            + std::to_string(kFp8GemmAlignment) + " as cuBLASLt's FP8 kernels need");
    }
    bool const type = output.type == CUDA_R_32F || output.type == CUDA_R_16F || output.type == CUDA_R_8F_E4M3;
    bool const bias = output.bias == nullptr || output.type != CUDA_R_32F;
    bool const dScale = output.dScale == nullptr || output.type == CUDA_R_8F_E4M3;
    bool const vectors = !output.outerVectors
        || (output.type != CUDA_R_8F_E4M3 && output.aScale != nullptr && output.bScale != nullptr);
    if (!aligned(output.aScale) || !aligned(output.bScale) || !aligned(output.dScale))
    {
        throw std::invalid_argument("FP8 product: a scale pointer is not aligned to "
            + std::to_string(kFp8ScaleAlignment) + " bytes, which cuBLASLt's FP8 kernels need");
    }
    if (!type || !bias || !dScale || !vectors)
    {
        throw std::invalid_argument("FP8 product: the output is FP32 (without a bias or an output scale), FP16 "
                                    "(without an output scale) or FP8 E4M3 (not with scales per row and column)");
    }
}

} // namespace

Fp8Gemm::Fp8Gemm(int64_t m, int64_t n, int64_t k, Fp8GemmOutput const& output, cublasLtHandle_t handle)
{
    checkArguments(m, n, k, output);
    try
    {
        describe(m, n, k, output);
        std::optional<cublasLtMatmulHeuristicResult_t> const choice = firstAlgorithm(handle, mMatmul, mA, mB, mC, mD);
        if (!choice)
        {
            throw std::runtime_error("FP8 product: cuBLASLt has no algorithm for " + std::to_string(m) + " x "
                + std::to_string(k) + " by " + std::to_string(k) + " x " + std::to_string(n)
                + " with this output and epilogue on this GPU (FP8 products need compute capability 8.9 or later)");
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

void Fp8Gemm::describe(int64_t m, int64_t n, int64_t k, Fp8GemmOutput const& output)
{
    checkCublasLt(cublasLtMatmulDescCreate(&mMatmul, CUBLAS_COMPUTE_32F, CUDA_R_32F), "creating an FP8 product");
    setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (output.aScale != nullptr)
    {
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, output.aScale);
    }
    if (output.bScale != nullptr)
    {
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, output.bScale);
    }
    if (output.dScale != nullptr)
    {
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, output.dScale);
    }
    if (output.outerVectors)
    {
#if CUBLAS_VERSION >= 120900
        // cuBLASLt takes outer-vector scales for both operands or for neither.
        auto const mode = static_cast<int32_t>(CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F);
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
#else
        throw std::runtime_error("FP8 product: this cuBLASLt has no outer-vector scaling (cuBLAS 12.9 and later)");
#endif
    }
    cublasLtEpilogue_t const epilogue = output.bias != nullptr
        ? (output.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
        : (output.relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
    setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
    if (output.bias != nullptr)
    {
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER, output.bias);
        setAttribute(mMatmul, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<int32_t>(CUDA_R_16F));
    }
    mA = makeLayout(CUDA_R_8F_E4M3, k, m, k);
    mB = makeLayout(CUDA_R_8F_E4M3, k, n, k);
    // C is not read (beta 0), but its type must be one cuBLASLt pairs with D: the bias's (FP16) for an FP8 output.
    mFp8Output = output.type == CUDA_R_8F_E4M3;
    mC = makeLayout(mFp8Output ? CUDA_R_16F : output.type, m, n, m);
    mD = makeLayout(output.type, m, n, m);
}

Fp8Gemm::~Fp8Gemm()
{
    release();
}

void Fp8Gemm::release()
{
    for (cublasLtMatrixLayout_t layout : {mA, mB, mC, mD})
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
    mA = mB = mC = mD = nullptr;
    mMatmul = nullptr;
}

void Fp8Gemm::run(
    cublasLtHandle_t handle, uint8_t const* a, uint8_t const* b, void* d, void* workspace, cudaStream_t stream) const
{
    float const one = 1.0F;
    float const zero = 0.0F;
    // Beta 0 leaves C unread: it is D (the same layout) or, for an FP8 output, whose C has a layout of its own, none.
    void const* const c = mFp8Output ? nullptr : d;
    checkCublasLt(cublasLtMatmul(handle, mMatmul, &one, a, mA, b, mB, &zero, c, mC, d, mD, &mAlgorithm, workspace,
                      mWorkspaceBytes, stream),
        "running an FP8 product");
}

} // namespace kiln::cuda
