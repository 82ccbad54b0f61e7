// Trilu and EyeLike, which TensorRT has no layers for, built as onnx-tensorrt builds Trilu: the row and column index
// of every element of the last two dims come from linspace fills, their difference (column - row) is compared with k,
// and a select keeps the input (Trilu) or puts one (EyeLike), or puts zero. The fills take their lengths from the
// input's shape, so run-time extents work.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"
#include "onnx/tensor_reader.h"

#include <optional>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! 0, 1, ..., length - 1 (INT64), for a 1-element shape tensor `length`.
ITensor& indices(ImportContext& ctx, ITensor& length)
{
    nvinfer1::Dims oneDim{};
    oneDim.nbDims = 1;
    auto& fill
        = ctx.check(ctx.network().addFill(oneDim, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64), "indices");
    fill.setAlpha(0.0);
    fill.setBeta(1.0);
    fill.setInput(0, length);
    return *fill.getOutput(0);
}

//! column - row for every element of the last two dims of `input`'s shape: a [rows, columns] INT64 tensor.
ITensor& diagonalOffsets(ImportContext& ctx, ITensor& input)
{
    int32_t const rank = rankOf(input);
    ITensor& shape = shapeOf(ctx, input);
    ITensor& rows = reshape(ctx, indices(ctx, gatherDims(ctx, shape, {rank - 2})), std::vector<int64_t>{-1, 1});
    ITensor& columns = reshape(ctx, indices(ctx, gatherDims(ctx, shape, {rank - 1})), std::vector<int64_t>{1, -1});
    return elementWise(ctx, columns, rows, ElementWiseOperation::kSUB);
}

std::vector<Value> importTrilu(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    if (rank < 2)
    {
        fail(ErrorCode::kINVALID_NODE, "Trilu's input must have rank 2 or more, not " + std::to_string(rank));
    }
    bool const upper = node.attrInt("upper", 1) != 0;
    ITensor* k = &scalarConstant(ctx, 0.0, DataType::kINT64, 0);
    if (node.hasInput(1))
    {
        ITensor& given = inputTensor(ctx, node, 1);
        if (rankOf(given) > 1 || (rankOf(given) == 1 && staticExtent(given, 0) != 1))
        {
            fail(ErrorCode::kINVALID_NODE, "Trilu's k must be a scalar");
        }
        k = &castTo(ctx, rankOf(given) == 0 ? given : reshape(ctx, given, std::vector<int64_t>{}), DataType::kINT64);
    }
    ITensor& offset = diagonalOffsets(ctx, input); // j - i for every (i, j)
    // upper keeps j - i >= k, that is not (j - i < k); lower keeps j - i <= k, that is not (j - i > k).
    ITensor& dropped
        = elementWise(ctx, offset, *k, upper ? ElementWiseOperation::kLESS : ElementWiseOperation::kGREATER);
    ITensor& keep = unary(ctx, dropped, nvinfer1::UnaryOperation::kNOT);
    ITensor& zero = scalarConstant(ctx, 0.0, input.getType(), rank);
    auto& select = ctx.check(ctx.network().addSelect(prependOnes(ctx, keep, rank), input, zero), "select");
    return single(*select.getOutput(0));
}

//! EyeLike: a 2-D tensor of the input's shape with ones on the diagonal k (above the main one where k > 0), zeros
//! elsewhere, in the type `dtype` names (else the input's).
std::vector<Value> importEyeLike(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    if (rankOf(input) != 2)
    {
        fail(ErrorCode::kINVALID_NODE, "EyeLike's input must be 2-D, not of rank " + std::to_string(rankOf(input)));
    }
    DataType type = input.getType();
    if (node.hasAttribute("dtype"))
    {
        auto const onnxType = static_cast<int32_t>(node.attrInt("dtype"));
        std::optional<DataType> const named = kilnType(onnxType);
        if (!named || onnxType == ::onnx::TensorProto::DOUBLE)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "EyeLike to " + onnxTypeName(onnxType) + " is not supported");
        }
        type = *named;
    }
    ITensor& k = scalarConstant(ctx, static_cast<double>(node.attrInt("k", 0)), DataType::kINT64, 0);
    ITensor& onDiagonal = elementWise(ctx, diagonalOffsets(ctx, input), k, ElementWiseOperation::kEQUAL);
    if (type == DataType::kBOOL)
    {
        return single(onDiagonal);
    }
    auto& select = ctx.check(
        ctx.network().addSelect(onDiagonal, scalarConstant(ctx, 1.0, type, 2), scalarConstant(ctx, 0.0, type, 2)),
        "select");
    return single(*select.getOutput(0));
}

} // namespace

ImporterRegistration const kTriluImporters([](ImporterTable& table) {
    table.add("Trilu", importTrilu);
    table.add("EyeLike", importEyeLike);
});

} // namespace kiln::onnxparser
