// MatMul (numpy semantics: 1-D operands and broadcast batch dims) and Gemm.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::MatrixOperation;

ITensor& matrixMultiply(ImportContext& ctx, ITensor& a, MatrixOperation opA, ITensor& b, MatrixOperation opB)
{
    return *ctx.check(ctx.network().addMatrixMultiply(a, opA, b, opB), "matrix multiply").getOutput(0);
}

std::vector<Value> importMatMul(ImportContext& ctx, Node const& node)
{
    ITensor* a = &inputTensor(ctx, node, 0);
    ITensor* b = &inputTensor(ctx, node, 1);
    // A 1-D operand is a row (left) or column (right) matrix whose added axis is removed afterwards.
    bool const vectorA = rankOf(*a) == 1;
    bool const vectorB = rankOf(*b) == 1;
    if (vectorA)
    {
        a = &insertOnes(ctx, *a, {0});
    }
    if (vectorB)
    {
        b = &insertOnes(ctx, *b, {1});
    }
    int32_t const rank = std::max(rankOf(*a), rankOf(*b));
    a = &prependOnes(ctx, *a, rank);
    b = &prependOnes(ctx, *b, rank);
    ITensor* product = &matrixMultiply(ctx, *a, MatrixOperation::kNONE, *b, MatrixOperation::kNONE);
    std::vector<int32_t> removed;
    if (vectorA)
    {
        removed.push_back(rank - 2);
    }
    if (vectorB)
    {
        removed.push_back(rank - 1);
    }
    if (!removed.empty())
    {
        product = &removeAxes(ctx, *product, removed);
    }
    return single(*product);
}

//! alpha * A' B' + beta * C.
std::vector<Value> importGemm(ImportContext& ctx, Node const& node)
{
    ITensor& a = inputTensor(ctx, node, 0);
    ITensor& b = inputTensor(ctx, node, 1);
    if (rankOf(a) != 2 || rankOf(b) != 2)
    {
        fail(ErrorCode::kINVALID_NODE, "Gemm takes 2-D A and B");
    }
    float const alpha = node.attrFloat("alpha", 1.0F);
    float const beta = node.attrFloat("beta", 1.0F);
    MatrixOperation const opA = node.attrInt("transA", 0) != 0 ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
    MatrixOperation const opB = node.attrInt("transB", 0) != 0 ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
    ITensor* result = &matrixMultiply(ctx, a, opA, b, opB);
    if (alpha != 1.0F)
    {
        result
            = &elementWise(ctx, *result, scalarConstant(ctx, alpha, result->getType(), 2), ElementWiseOperation::kPROD);
    }
    if (node.hasInput(2) && beta != 0.0F)
    {
        ITensor* c = &inputTensor(ctx, node, 2);
        if (beta != 1.0F)
        {
            c = &elementWise(ctx, *c, scalarConstant(ctx, beta, c->getType(), rankOf(*c)), ElementWiseOperation::kPROD);
        }
        result = &elementWise(ctx, *result, *c, ElementWiseOperation::kSUM);
    }
    return single(*result);
}

} // namespace

ImporterRegistration const kMatMulImporters([](ImporterTable& table) {
    table.add("MatMul", importMatMul);
    table.add("Gemm", importGemm);
});

} // namespace kiln::onnxparser
