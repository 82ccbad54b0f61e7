// OneHot through IOneHotLayer, and Hardmax (opset 13 on) as the one-hot rows of an ArgMax, as onnx-tensorrt builds
// them. IOneHotLayer has ONNX's semantics: negative indices count from depth, indices out of range give a row of the
// off value.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;

bool isIndexType(DataType type)
{
    return type == DataType::kINT32 || type == DataType::kINT64;
}

//! Input 1 as the 0-D INT32 or INT64 shape tensor IOneHotLayer takes for depth. ONNX gives a scalar or one element
//! of any numeric type, cast to int64: a constant's value is read here (the usual case); a depth computed in the
//! graph must be an integer shape tensor (computed from shapes and constants).
ITensor& depthScalar(ImportContext& ctx, Node const& node)
{
    ITensor& tensor = inputTensor(ctx, node, 1);
    int32_t const rank = rankOf(tensor);
    if (rank > 1 || (rank == 1 && staticExtent(tensor, 0) != 1))
    {
        fail(ErrorCode::kINVALID_NODE, "OneHot's depth must be a scalar or a tensor of one element");
    }
    if (isConstantInput(node, 1))
    {
        return reshape(ctx, int64Constant(ctx, constantInts(node, 1, "depth")), std::vector<int64_t>{});
    }
    ITensor& computed = requireShapeValues(tensor, "OneHot's depth");
    if (!isIndexType(computed.getType()))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, "OneHot's depth, computed in the graph, must be INT32 or INT64");
    }
    return rank == 0 ? computed : reshape(ctx, computed, std::vector<int64_t>{});
}

nvinfer1::IOneHotLayer& oneHot(ImportContext& ctx, ITensor& indices, ITensor& values, ITensor& depth, int32_t axis)
{
    ITensor& index = isIndexType(indices.getType()) ? indices : castTo(ctx, indices, DataType::kINT64);
    return ctx.check(ctx.network().addOneHot(index, values, depth, axis), "one-hot");
}

std::vector<Value> importOneHot(ImportContext& ctx, Node const& node)
{
    ITensor& indices = inputTensor(ctx, node, 0);
    ITensor& values = inputTensor(ctx, node, 2);
    if (rankOf(values) != 1 || staticExtent(values, 0) != 2)
    {
        fail(ErrorCode::kINVALID_NODE, "OneHot's values must be a 1-D tensor of two elements: [off, on]");
    }
    int64_t const axis = node.attrInt("axis", -1);
    int32_t const outputRank = rankOf(indices) + 1;
    if (axis < -outputRank || axis >= outputRank)
    {
        fail(ErrorCode::kINVALID_NODE,
            "OneHot's axis " + std::to_string(axis) + " is out of range for an output of rank "
                + std::to_string(outputRank));
    }
    ITensor& depth = depthScalar(ctx, node);
    return single(*oneHot(ctx, indices, values, depth, static_cast<int32_t>(axis)).getOutput(0));
}

//! [0, 1] in `type`: the off and on values of a one-hot row.
ITensor& offOn(ImportContext& ctx, DataType type)
{
    ITensor* parts[] = {&scalarConstant(ctx, 0.0, type, 1), &scalarConstant(ctx, 1.0, type, 1)};
    return *ctx.check(ctx.network().addConcatenation(parts, 2), "off and on values").getOutput(0);
}

std::vector<Value> importHardmax(ImportContext& ctx, Node const& node)
{
    if (ctx.opset() < 13)
    {
        // Before opset 13, Hardmax flattened its input to 2-D around the axis (default 1).
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "Hardmax before opset 13 (the input coerced to 2-D) is not supported; "
            "export at opset 13 or later");
    }
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int32_t const axis = normalizeAxis(node.attrInt("axis", -1), rank);
    // The first largest element's index along the axis (TopK keeps the first of equal values), the axis removed.
    auto& top = ctx.check(
        ctx.network().addTopK(input, nvinfer1::TopKOperation::kMAX, 1, 1U << axis, DataType::kINT64), "arg max");
    ITensor& indices = removeAxes(ctx, *top.getOutput(1), {axis});
    ITensor& depth = reshape(ctx, gatherDims(ctx, shapeOf(ctx, input), {axis}), std::vector<int64_t>{});
    return single(*oneHot(ctx, indices, offOn(ctx, input.getType()), depth, axis).getOutput(0));
}

} // namespace

ImporterRegistration const kOneHotImporters([](ImporterTable& table) {
    table.add("OneHot", importOneHot);
    table.add("Hardmax", importHardmax);
});

} // namespace kiln::onnxparser
