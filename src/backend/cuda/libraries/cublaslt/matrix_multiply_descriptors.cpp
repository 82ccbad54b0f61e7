#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

cudaDataType_t cudaType(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return CUDA_R_32F;
    case nvinfer1::DataType::kHALF: return CUDA_R_16F;
    default: throw std::invalid_argument("matrix multiply: the CUDA backend multiplies FP32 or FP16 matrices");
    }
}

template <typename T>
void setMatmulAttribute(
    cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, T const& value, char const* what)
{
    checkCublasLt(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)), what);
}

//! A column-major layout of `matrix` for `batches` matrices, one every `matrix.batchStride` elements.
cublasLtMatrixLayout_t makeLayout(GemmMatrix const& matrix, cudaDataType_t type, int64_t batches, char const* what)
{
    cublasLtMatrixLayout_t layout = nullptr;
    checkCublasLt(cublasLtMatrixLayoutCreate(
                      &layout, type, static_cast<uint64_t>(matrix.rows), static_cast<uint64_t>(matrix.cols), matrix.ld),
        what);
    auto const count = static_cast<int32_t>(batches);
    cublasStatus_t status
        = cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
    if (status == CUBLAS_STATUS_SUCCESS)
    {
        status = cublasLtMatrixLayoutSetAttribute(
            layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &matrix.batchStride, sizeof(matrix.batchStride));
    }
    if (status != CUBLAS_STATUS_SUCCESS)
    {
        cublasLtMatrixLayoutDestroy(layout);
        checkCublasLt(status, what);
    }
    return layout;
}

//! The preference that the heuristics choose by, destroyed with this object.
class Preference
{
public:
    Preference()
    {
        checkCublasLt(cublasLtMatmulPreferenceCreate(&mPreference), "creating a heuristic preference");
    }
    ~Preference()
    {
        cublasLtMatmulPreferenceDestroy(mPreference);
    }
    Preference(Preference const&) = delete;
    Preference& operator=(Preference const&) = delete;

    template <typename T>
    void set(cublasLtMatmulPreferenceAttributes_t attribute, T const& value)
    {
        checkCublasLt(cublasLtMatmulPreferenceSetAttribute(mPreference, attribute, &value, sizeof(value)),
            "setting a heuristic preference");
    }
    cublasLtMatmulPreference_t get() const
    {
        return mPreference;
    }

private:
    cublasLtMatmulPreference_t mPreference{nullptr};
};

} // namespace

void checkCublasLt(cublasStatus_t status, char const* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
    {
        throw std::runtime_error(std::string("matrix multiply: cuBLASLt failed ") + what + ": "
            + cublasLtGetStatusName(status) + " (" + cublasLtGetStatusString(status) + ")");
    }
}

uint32_t addressAlignment(void const* address)
{
    auto const bits = reinterpret_cast<uintptr_t>(address);
    uint32_t alignment = 256;
    while (alignment > 1 && bits % alignment != 0)
    {
        alignment /= 2;
    }
    return alignment;
}

MatrixMultiplyDescriptors::~MatrixMultiplyDescriptors()
{
    release();
}

void MatrixMultiplyDescriptors::release()
{
    if (matmul != nullptr)
    {
        cublasLtMatmulDescDestroy(matmul);
    }
    for (cublasLtMatrixLayout_t layout : {first, second, output})
    {
        if (layout != nullptr)
        {
            cublasLtMatrixLayoutDestroy(layout);
        }
    }
    matmul = nullptr;
    first = nullptr;
    second = nullptr;
    output = nullptr;
}

void MatrixMultiplyDescriptors::describe(
    GemmGeometry const& geometry, nvinfer1::DataType type, GemmEpilogue const& epilogue)
{
    release();
    cudaDataType_t const dataType = cudaType(type);
    if (geometry.batches > std::numeric_limits<int32_t>::max())
    {
        throw std::invalid_argument(
            "matrix multiply: " + std::to_string(geometry.batches) + " batches are more than cuBLASLt takes");
    }
    mGeometry = geometry;
    checkCublasLt(cublasLtMatmulDescCreate(&matmul, CUBLAS_COMPUTE_32F, CUDA_R_32F), "creating a matmul descriptor");
    cublasOperation_t const transA = geometry.first.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t const transB = geometry.second.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    setMatmulAttribute(matmul, CUBLASLT_MATMUL_DESC_TRANSA, transA, "setting the first operand's transpose");
    setMatmulAttribute(matmul, CUBLASLT_MATMUL_DESC_TRANSB, transB, "setting the second operand's transpose");
    // The output is column-major n x m, so the layer's bias over its n columns is cuBLASLt's bias over D's rows.
    cublasLtEpilogue_t const mode = epilogue.bias != nullptr
        ? (epilogue.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
        : (epilogue.relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
    setMatmulAttribute(matmul, CUBLASLT_MATMUL_DESC_EPILOGUE, mode, "setting the epilogue");
    if (epilogue.bias != nullptr)
    {
        // Set before choosing the algorithm: the heuristics read the pointer's alignment.
        setMatmulAttribute(matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER, epilogue.bias, "setting the bias");
        int64_t const biasBatchStride = epilogue.biasPerBatch ? geometry.n : 0;
        setMatmulAttribute(
            matmul, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, biasBatchStride, "setting the bias's batch stride");
    }
    first = makeLayout(geometry.first, dataType, geometry.batches, "describing the first operand");
    second = makeLayout(geometry.second, dataType, geometry.batches, "describing the second operand");
    output = makeLayout(geometry.output, dataType, geometry.batches, "describing the output");
}

std::vector<cublasLtMatmulHeuristicResult_t> MatrixMultiplyDescriptors::rankedAlgorithms(
    cublasLtHandle_t handle, GemmAlignments const& alignments, size_t maxWorkspaceBytes, int count) const
{
    Preference preference;
    preference.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, static_cast<uint64_t>(maxWorkspaceBytes));
    preference.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignments.first);
    preference.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignments.second);
    preference.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignments.output);
    preference.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignments.output);
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(std::max(count, 1)));
    int found = 0;
    cublasStatus_t const status = cublasLtMatmulAlgoGetHeuristic(handle, matmul, first, second, output, output,
        preference.get(), static_cast<int>(results.size()), results.data(), &found);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0))
    {
        throw std::runtime_error("matrix multiply: cuBLASLt has no algorithm for a product of "
            + std::to_string(mGeometry.m) + " x " + std::to_string(mGeometry.k) + " by " + std::to_string(mGeometry.k)
            + " x " + std::to_string(mGeometry.n) + " matrices (" + std::to_string(mGeometry.batches) + " batches)");
    }
    checkCublasLt(status, "choosing an algorithm");
    results.resize(static_cast<size_t>(found));
    return results;
}

cublasLtMatmulHeuristicResult_t MatrixMultiplyDescriptors::chooseAlgorithm(
    cublasLtHandle_t handle, GemmAlignments const& alignments, size_t maxWorkspaceBytes, int rank) const
{
    std::vector<cublasLtMatmulHeuristicResult_t> const ranked
        = rankedAlgorithms(handle, alignments, maxWorkspaceBytes, rank + 1);
    return ranked.back();
}

std::optional<cublasLtMatmulHeuristicResult_t> MatrixMultiplyDescriptors::splitAlgorithm(cublasLtHandle_t handle,
    cublasLtMatmulHeuristicResult_t const& choice, int32_t splits, size_t maxWorkspaceBytes) const
{
    int32_t splitSupport = 0;
    uint32_t schemes = 0;
    size_t written = 0;
    bool const splittable = cublasLtMatmulAlgoCapGetAttribute(&choice.algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT,
                                &splitSupport, sizeof(splitSupport), &written)
            == CUBLAS_STATUS_SUCCESS
        && splitSupport != 0
        && cublasLtMatmulAlgoCapGetAttribute(
               &choice.algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, &schemes, sizeof(schemes), &written)
            == CUBLAS_STATUS_SUCCESS;
    if (!splittable)
    {
        return std::nullopt;
    }
    // Partial sums in FP32 first (FP16 outputs would round each), else summed in the output itself.
    for (uint32_t const scheme : {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, CUBLASLT_REDUCTION_SCHEME_INPLACE,
             CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE})
    {
        cublasLtMatmulHeuristicResult_t split = choice;
        cublasLtMatmulHeuristicResult_t checked{};
        bool const usable = (schemes & scheme) != 0
            && cublasLtMatmulAlgoConfigSetAttribute(
                   &split.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof(splits))
                == CUBLAS_STATUS_SUCCESS
            && cublasLtMatmulAlgoConfigSetAttribute(
                   &split.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof(scheme))
                == CUBLAS_STATUS_SUCCESS
            && cublasLtMatmulAlgoCheck(handle, matmul, first, second, output, output, &split.algo, &checked)
                == CUBLAS_STATUS_SUCCESS
            && checked.workspaceSize <= maxWorkspaceBytes;
        if (usable)
        {
            split.workspaceSize = checked.workspaceSize;
            split.wavesCount = checked.wavesCount;
            return split;
        }
    }
    return std::nullopt;
}

} // namespace kiln::cuda
