#include "backend/cuda/libraries/cublaslt/matrix_multiply_geometry.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using nvinfer1::MatrixOperation;

//! One input as the layer sees it: op(input)'s extents, whether op transposes, and the batch axes before it.
struct Operand
{
    int64_t rows{0};
    int64_t cols{0};
    bool transposed{false};
    Shape batch;
};

//! `shape` under `op`: a vector is one row (first input) or one column (second input).
Operand describe(Shape const& shape, MatrixOperation op, bool first)
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

//! The output's batch axes: each the larger of the inputs' extents (where they broadcast, one of them is 1).
Shape outputBatch(Operand const& left, Operand const& right)
{
    if (left.batch.size() != right.batch.size())
    {
        throw std::invalid_argument("matrix multiply: the inputs have " + std::to_string(left.batch.size()) + " and "
            + std::to_string(right.batch.size()) + " batch axes; they need as many");
    }
    Shape batch(left.batch.size());
    for (size_t axis = 0; axis < batch.size(); ++axis)
    {
        int64_t const a = left.batch[axis];
        int64_t const b = right.batch[axis];
        if (a != b && a != 1 && b != 1)
        {
            throw std::invalid_argument("matrix multiply: batch axis " + std::to_string(axis) + " does not broadcast ("
                + std::to_string(a) + " and " + std::to_string(b) + ")");
        }
        batch[axis] = a == 1 ? b : a;
    }
    return batch;
}

//! The distance between consecutive matrices of an operand: its size, or 0 when its batch extents are all 1 and
//! it is repeated for every batch of the output.
int64_t batchStride(Operand const& operand, Shape const& batch, char const* name)
{
    if (volume(operand.batch) == 1)
    {
        return 0;
    }
    if (operand.batch != batch)
    {
        throw std::invalid_argument(std::string("matrix multiply: the CUDA backend broadcasts a whole batch only; ")
            + name + "'s batch axes must equal the output's or all be 1");
    }
    return operand.rows * operand.cols;
}

//! Where the second input is repeated over the trailing batch axes and the first is not transposed, the first's
//! rows over those axes lie one after another, as the output's do: they are one taller matrix. Folds them into
//! `left`'s rows and drops them from both operands' and the output's batch axes. One large GEMM beats a batch of
//! small ones: a transformer's linear layer on [batch, tokens, k] by one weight matrix is one product, and so is
//! one input by a stack of weight matrices ([1, batch, tokens, k] by [g, 1, k, n], products merged because they
//! read one input).
void foldRepeatedBatchIntoRows(Operand& left, Operand& right, Shape& batch)
{
    if (left.transposed)
    {
        return;
    }
    while (!batch.empty() && right.batch.back() == 1)
    {
        left.rows *= left.batch.back();
        for (Shape* axes : {&left.batch, &right.batch, &batch})
        {
            axes->pop_back();
        }
    }
}

} // namespace

GemmGeometry gemmGeometry(Shape const& input0, MatrixOperation op0, Shape const& input1, MatrixOperation op1)
{
    Operand left = describe(input0, op0, true);
    Operand right = describe(input1, op1, false);
    if (left.cols != right.rows)
    {
        throw std::invalid_argument("matrix multiply: the inner extents differ (" + std::to_string(left.cols) + " and "
            + std::to_string(right.rows) + ")");
    }
    Shape batch = outputBatch(left, right);
    foldRepeatedBatchIntoRows(left, right, batch);
    GemmGeometry g;
    g.m = left.rows;
    g.n = right.cols;
    g.k = left.cols;
    g.batches = volume(batch);
    // A row-major r x c matrix is, column-major, its c x r transpose with leading dimension c. The leading
    // dimensions stay at least 1, as the library requires, for vectors and empty extents alike.
    g.first.transposed = right.transposed;
    g.first.rows = right.transposed ? g.k : g.n;
    g.first.cols = right.transposed ? g.n : g.k;
    g.first.ld = std::max<int64_t>(1, g.first.rows);
    g.first.batchStride = batchStride(right, batch, "the second input");
    g.second.transposed = left.transposed;
    g.second.rows = left.transposed ? g.m : g.k;
    g.second.cols = left.transposed ? g.k : g.m;
    g.second.ld = std::max<int64_t>(1, g.second.rows);
    g.second.batchStride = batchStride(left, batch, "the first input");
    g.output.rows = g.n;
    g.output.cols = g.m;
    g.output.ld = std::max<int64_t>(1, g.n);
    g.output.batchStride = g.m * g.n;
    return g;
}

} // namespace kiln::cuda
