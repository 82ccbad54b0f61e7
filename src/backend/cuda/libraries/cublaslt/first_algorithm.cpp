#include "backend/cuda/libraries/cublaslt/first_algorithm.h"

#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"

namespace kiln::cuda
{

std::optional<cublasLtMatmulHeuristicResult_t> firstAlgorithm(cublasLtHandle_t handle, cublasLtMatmulDesc_t matmul,
    cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d)
{
    cublasLtMatmulPreference_t preference = nullptr;
    checkCublasLt(cublasLtMatmulPreferenceCreate(&preference), "creating a heuristic preference");
    size_t const maxWorkspace = kMaxGemmWorkspaceBytes;
    cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace, sizeof(maxWorkspace));
    cublasLtMatmulHeuristicResult_t choice{};
    int found = 0;
    if (status == CUBLAS_STATUS_SUCCESS)
    {
        status = cublasLtMatmulAlgoGetHeuristic(handle, matmul, a, b, c, d, preference, 1, &choice, &found);
    }
    cublasLtMatmulPreferenceDestroy(preference);
    // cuBLASLt answers a combination of types, scales and epilogue it has no kernel for with NOT_SUPPORTED.
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    {
        return std::nullopt;
    }
    checkCublasLt(status, "choosing a quantized product's algorithm");
    return found > 0 ? std::optional<cublasLtMatmulHeuristicResult_t>(choice) : std::nullopt;
}

} // namespace kiln::cuda
