#include "backend/cuda/matrix_multiply_layer.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using nvinfer1::MatrixOperation;

//! One operand as cuBLAS sees it: its matrix extents after the operation, and its batch axes.
struct Operand
{
    int64_t rows{0};
    int64_t cols{0};
    bool transposed{false};
    cpu::Shape batch;
};

//! `shape` under `op`: a vector is one row (first operand) or one column (second operand).
Operand describe(cpu::Shape const& shape, MatrixOperation op, bool first)
{
    Operand operand;
    if (op == MatrixOperation::kVECTOR)
    {
        if (shape.empty())
        {
            throw std::invalid_argument("matrix multiply: a kVECTOR operand needs at least one axis");
        }
        int64_t const length = shape.back();
        operand.rows = first ? 1 : length;
        operand.cols = first ? length : 1;
        operand.batch.assign(shape.begin(), shape.end() - 1);
        return operand;
    }
    if (shape.size() < 2)
    {
        throw std::invalid_argument("matrix multiply: a matrix operand needs at least two axes");
    }
    int64_t const r = shape[shape.size() - 2];
    int64_t const c = shape.back();
    operand.transposed = op == MatrixOperation::kTRANSPOSE;
    operand.rows = operand.transposed ? c : r;
    operand.cols = operand.transposed ? r : c;
    operand.batch.assign(shape.begin(), shape.end() - 2);
    return operand;
}

int64_t volumeOf(cpu::Shape const& shape)
{
    return cpu::volume(shape);
}

//! The distance between consecutive matrices of an operand: its size, or 0 when its batch extents are all 1 and
//! it is repeated for every batch of the output.
int64_t batchStride(Operand const& operand, cpu::Shape const& outBatch, char const* name)
{
    if (volumeOf(operand.batch) == 1)
    {
        return 0;
    }
    cpu::Shape aligned(outBatch.size() - std::min(outBatch.size(), operand.batch.size()), 1);
    aligned.insert(aligned.end(), operand.batch.begin(), operand.batch.end());
    if (aligned != outBatch)
    {
        throw std::invalid_argument(std::string("matrix multiply: the CUDA backend broadcasts a whole batch only; ")
            + name + "'s batch axes must equal the output's or all be 1");
    }
    return operand.rows * operand.cols;
}

cudaDataType_t cudaType(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return CUDA_R_32F;
    case nvinfer1::DataType::kHALF: return CUDA_R_16F;
    default: throw std::invalid_argument("matrix multiply: the CUDA backend multiplies FP32 or FP16 matrices");
    }
}

} // namespace

void MatrixMultiplyLayer::run(
    std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs, cudaStream_t stream)
{
    cpu::ConstTensorView const& a = inputs[0];
    cpu::ConstTensorView const& b = inputs[1];
    cpu::TensorView const& c = outputs[0];
    if (a.type != b.type || a.type != c.type)
    {
        throw std::invalid_argument("matrix multiply: both inputs and the output must have one type");
    }
    Operand const left = describe(a.shape, mParams.op0, true);
    Operand const right = describe(b.shape, mParams.op1, false);
    if (left.cols != right.rows)
    {
        throw std::invalid_argument("matrix multiply: the inner extents differ (" + std::to_string(left.cols) + " and "
            + std::to_string(right.rows) + ")");
    }
    int64_t const m = left.rows;
    int64_t const n = right.cols;
    int64_t const k = left.cols;
    // The output's batch axes are what precede its matrix (or vector) axes.
    size_t const matrixAxes = (mParams.op0 == MatrixOperation::kVECTOR ? 0 : 1) + (mParams.op1 == MatrixOperation::kVECTOR ? 0 : 1);
    cpu::Shape const outBatch(c.shape.begin(), c.shape.end() - static_cast<std::ptrdiff_t>(matrixAxes));
    int64_t const batches = volumeOf(outBatch);
    if (c.count() == 0)
    {
        return;
    }
    int64_t const strideA = batchStride(left, outBatch, "the first input");
    int64_t const strideB = batchStride(right, outBatch, "the second input");

    // Row-major C = A'B' is column-major C^T = B'^T A'^T: cuBLAS multiplies the operands in swapped order. A
    // row-major matrix stored r x c is, to cuBLAS, its transpose with leading dimension c.
    cublasOperation_t const opB = right.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t const opA = left.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    int64_t const ldb = right.transposed ? k : n;
    int64_t const lda = left.transposed ? m : k;
    float const one = 1.0F;
    float const zero = 0.0F;
    cudaDataType_t const type = cudaType(a.type);
    cublasHandle_t const handle = mHandles.cublas(stream);
    // FP32 stays FP32 (no TF32), so results agree with the CPU reference; FP16 uses tensor cores.
    cublasSetMathMode(handle, a.type == nvinfer1::DataType::kHALF ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH);
    cublasStatus_t const status = cublasGemmStridedBatchedEx(handle, opB, opA, static_cast<int>(n), static_cast<int>(m),
        static_cast<int>(k), &one, b.data, type, static_cast<int>(ldb), strideB, a.data, type, static_cast<int>(lda),
        strideA, &zero, c.data, type, static_cast<int>(n), m * n, static_cast<int>(batches), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
    {
        throw std::runtime_error(std::string("matrix multiply: cuBLAS failed: ") + cublasGetStatusString(status));
    }
}

} // namespace kiln::cuda
