#include "backend/cpu/kernels/tensor/matrix_multiply.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <vector>

namespace kiln::cpu
{
namespace
{

using nvinfer1::MatrixOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "matrixMultiply";

Shape broadcastBatch(MatrixOperand const& a, MatrixOperand const& b)
{
    if (a.batch.size() != b.batch.size())
    {
        fail(kKernel,
            "operands have different numbers of batch dims: " + shapeText(a.batch) + " and " + shapeText(b.batch));
    }
    return broadcastShapes(a.batch, b.batch, kKernel);
}

} // namespace

MatrixOperand describeMatrixOperand(Shape const& shape, MatrixOperation op, bool isLeft)
{
    size_t const matrixRank = op == MatrixOperation::kVECTOR ? 1 : 2;
    if (shape.size() < matrixRank)
    {
        fail(kKernel, "operand of shape " + shapeText(shape) + " has too few dims for its matrix operation");
    }
    MatrixOperand operand;
    operand.batch.assign(shape.begin(), shape.end() - static_cast<int64_t>(matrixRank));
    if (op == MatrixOperation::kVECTOR)
    {
        // The left vector is a single row, the right vector a single column.
        int64_t const length = shape.back();
        operand.rows = isLeft ? 1 : length;
        operand.cols = isLeft ? length : 1;
        operand.rowStride = isLeft ? 0 : 1;
        operand.colStride = isLeft ? 1 : 0;
        return operand;
    }
    int64_t const storedRows = shape[shape.size() - 2];
    int64_t const storedCols = shape.back();
    bool const transposed = op == MatrixOperation::kTRANSPOSE;
    operand.rows = transposed ? storedCols : storedRows;
    operand.cols = transposed ? storedRows : storedCols;
    operand.rowStride = transposed ? 1 : storedCols;
    operand.colStride = transposed ? storedCols : 1;
    return operand;
}

Shape matrixMultiplyOutputShape(Shape const& input0, Shape const& input1, network::MatrixMultiplyParams const& params)
{
    MatrixOperand const a = describeMatrixOperand(input0, params.op0, true);
    MatrixOperand const b = describeMatrixOperand(input1, params.op1, false);
    if (a.cols != b.rows)
    {
        fail(kKernel,
            "inner dimensions differ: " + std::to_string(a.cols) + " and " + std::to_string(b.rows) + " (shapes "
                + shapeText(input0) + " and " + shapeText(input1) + ")");
    }
    Shape output = broadcastBatch(a, b);
    if (params.op0 != MatrixOperation::kVECTOR)
    {
        output.push_back(a.rows);
    }
    if (params.op1 != MatrixOperation::kVECTOR)
    {
        output.push_back(b.cols);
    }
    return output;
}

void matrixMultiply(ConstTensorView const& input0, ConstTensorView const& input1, TensorView const& output,
    network::MatrixMultiplyParams const& params)
{
    expectShape(output.shape, matrixMultiplyOutputShape(input0.shape, input1.shape, params), kKernel, "output");
    MatrixOperand const a = describeMatrixOperand(input0.shape, params.op0, true);
    MatrixOperand const b = describeMatrixOperand(input1.shape, params.op1, false);
    Shape const batch = broadcastBatch(a, b);
    int64_t const m = a.rows;
    int64_t const k = a.cols;
    int64_t const n = b.cols;
    if (volume(batch) * m * n == 0)
    {
        return;
    }

    // Strides of whole matrices along the batch dims; 0 where an operand broadcasts.
    auto matrixBatchStrides = [&](MatrixOperand const& operand) {
        Shape strides = broadcastStrides(operand.batch, batch, kKernel);
        for (int64_t& stride : strides)
        {
            stride *= operand.rows * operand.cols;
        }
        return strides;
    };
    Shape outputStrides = contiguousStrides(batch);
    for (int64_t& stride : outputStrides)
    {
        stride *= m * n;
    }

    // Operand rows are converted to float once per batch so the inner loop does not re-decode them.
    std::vector<float> left(static_cast<size_t>(m * k));
    std::vector<float> right(static_cast<size_t>(k * n));
    forEachIndex<3>(batch, {matrixBatchStrides(a), matrixBatchStrides(b), outputStrides},
        [&](std::array<int64_t, 3> const& offsets) {
            for (int64_t i = 0; i < m; ++i)
            {
                for (int64_t p = 0; p < k; ++p)
                {
                    int64_t const position = offsets[0] + i * a.rowStride + p * a.colStride;
                    left[i * k + p] = readFloat(input0.data, input0.type, position);
                }
            }
            for (int64_t p = 0; p < k; ++p)
            {
                for (int64_t j = 0; j < n; ++j)
                {
                    int64_t const position = offsets[1] + p * b.rowStride + j * b.colStride;
                    right[p * n + j] = readFloat(input1.data, input1.type, position);
                }
            }
            for (int64_t i = 0; i < m; ++i)
            {
                for (int64_t j = 0; j < n; ++j)
                {
                    double sum = 0.0;
                    for (int64_t p = 0; p < k; ++p)
                    {
                        sum += static_cast<double>(left[i * k + p]) * static_cast<double>(right[p * n + j]);
                    }
                    writeFloat(output.data, output.type, offsets[2] + i * n + j, static_cast<float>(sum));
                }
            }
        });
}

void run(network::MatrixMultiplyParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    matrixMultiply(in[0], in[1], out[0], p);
}

} // namespace kiln::cpu
