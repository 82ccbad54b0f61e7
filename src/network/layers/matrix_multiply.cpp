#include "network/layers/matrix_multiply.h"

#include "core/logging.h"
#include "core/data_type.h"
#include "network/layers/elementwise.h"

namespace kiln::network
{

bool MatrixMultiplyParams::infer(InferenceContext& ctx) const
{
    using nvinfer1::MatrixOperation;
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a matrix multiply takes two inputs");
    }
    if (!isFloatType(ctx.input(0).type) || !isFloatType(ctx.input(1).type))
    {
        return ctx.fail("matrix multiply takes FLOAT, HALF or BF16 inputs");
    }
    int32_t const matrixRank0 = op0 == MatrixOperation::kVECTOR ? 1 : 2;
    int32_t const matrixRank1 = op1 == MatrixOperation::kVECTOR ? 1 : 2;
    int32_t const batch0 = ctx.rank(0) - matrixRank0;
    int32_t const batch1 = ctx.rank(1) - matrixRank1;
    if (batch0 < 0 || batch1 < 0 || batch0 != batch1)
    {
        return ctx.fail("the inputs have ranks " + std::to_string(ctx.rank(0)) + " and " + std::to_string(ctx.rank(1))
            + "; both need the same number of batch dimensions before their matrix or vector dimensions");
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < batch0; ++i)
    {
        Dim const a = ctx.dim(0, i);
        Dim const b = ctx.dim(1, i);
        if (a.isConstant() && b.isConstant() && a.constant() != b.constant() && a.constant() != 1 && b.constant() != 1)
        {
            return ctx.fail("batch dimension " + std::to_string(i)
                + " does not broadcast: " + std::to_string(a.constant()) + " vs " + std::to_string(b.constant()));
        }
        dims.push_back(broadcastExtent(a, b));
    }
    // The reduced extent of each operand, and the extent it contributes to the output.
    Dim k0;
    Dim k1;
    if (op0 == MatrixOperation::kVECTOR)
    {
        k0 = ctx.dim(0, batch0);
    }
    else
    {
        bool const transposed = op0 == MatrixOperation::kTRANSPOSE;
        dims.push_back(ctx.dim(0, batch0 + (transposed ? 1 : 0)));
        k0 = ctx.dim(0, batch0 + (transposed ? 0 : 1));
    }
    if (op1 == MatrixOperation::kVECTOR)
    {
        k1 = ctx.dim(1, batch1);
    }
    else
    {
        bool const transposed = op1 == MatrixOperation::kTRANSPOSE;
        k1 = ctx.dim(1, batch1 + (transposed ? 1 : 0));
        dims.push_back(ctx.dim(1, batch1 + (transposed ? 0 : 1)));
    }
    if (k0.isConstant() && k1.isConstant() && k0.constant() != k1.constant())
    {
        return ctx.fail(
            "the reduced dimensions differ: " + std::to_string(k0.constant()) + " vs " + std::to_string(k1.constant()));
    }
    return ctx.setOutput(0, ctx.input(0).type, dims);
}

void MatrixMultiplyLayer::setOperation(int32_t index, nvinfer1::MatrixOperation op) noexcept
{
    if (index != 0 && index != 1)
    {
        logError("IMatrixMultiplyLayer::setOperation: index " + std::to_string(index) + " must be 0 or 1");
        return;
    }
    network().invalidate();
    (index == 0 ? mutableParams().op0 : mutableParams().op1) = op;
}

} // namespace kiln::network
