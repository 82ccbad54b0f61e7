// Softmax and LogSoftmax. Before opset 13 they work on the input flattened to 2-D at `axis`
// (default 1); since opset 13 along the single axis (default -1).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

ITensor& softmaxAlong(ImportContext& ctx, ITensor& input, int32_t axis)
{
    auto& layer = ctx.check(ctx.network().addSoftMax(input), "softmax");
    layer.setAxes(1U << axis);
    return *layer.getOutput(0);
}

ITensor& softmax(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    bool const legacy = ctx.opset() < 13;
    int32_t const axis = normalizeAxis(node.attrInt("axis", legacy ? 1 : -1), rank);
    if (!legacy || axis == rank - 1)
    {
        return softmaxAlong(ctx, input, axis);
    }
    // Flatten to [prod(dims before axis), prod(dims from axis)], softmax the rows, restore the shape.
    ITensor& shape = shapeOf(ctx, input);
    ITensor& rows = shapeProduct(ctx, dimsRange(ctx, shape, 0, axis));
    ITensor& flat = reshape(ctx, input, concatShapes(ctx, {&rows, &int64Constant(ctx, {-1})}));
    return reshape(ctx, softmaxAlong(ctx, flat, 1), shape);
}

std::vector<Value> importSoftmax(ImportContext& ctx, Node const& node)
{
    return single(softmax(ctx, node));
}

std::vector<Value> importLogSoftmax(ImportContext& ctx, Node const& node)
{
    return single(unary(ctx, softmax(ctx, node), nvinfer1::UnaryOperation::kLOG));
}

} // namespace

ImporterRegistration const kSoftmaxImporters([](ImporterTable& table) {
    table.add("Softmax", importSoftmax);
    table.add("LogSoftmax", importLogSoftmax);
});

} // namespace kiln::onnxparser
