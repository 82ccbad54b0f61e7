// TopK, ArgMax and ArgMin through ITopKLayer (indices as INT64, ONNX's type).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;
using nvinfer1::TopKOperation;

nvinfer1::ITopKLayer& topK(ImportContext& ctx, ITensor& input, TopKOperation op, int64_t k, int32_t axis)
{
    return ctx.check(
        ctx.network().addTopK(input, op, static_cast<int32_t>(k), 1U << axis, nvinfer1::DataType::kINT64), "top-k");
}

std::vector<Value> importTopK(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const axis = normalizeAxis(node.attrInt("axis", -1), rankOf(input));
    if (node.attrInt("sorted", 1) == 0)
    {
        // Unsorted output may be in any order; sorted order is one of them.
        ctx.log(nvinfer1::ILogger::Severity::kVERBOSE, node.describe() + ": sorted = 0 returns sorted values");
    }
    TopKOperation const op = node.attrInt("largest", 1) != 0 ? TopKOperation::kMAX : TopKOperation::kMIN;
    if (ctx.opset() >= 10 && !isConstantInput(node, 1))
    {
        // K known only at run time (a shape tensor, say from a graph input): the layer's input 1, as a 0-D tensor.
        ITensor& k = requireShapeValues(inputTensor(ctx, node, 1), "K");
        auto& scalar = ctx.check(ctx.network().addShuffle(k), "K as a scalar");
        scalar.setReshapeDimensions(nvinfer1::Dims{0, {}});
        auto& layer = topK(ctx, input, op, 1, axis);
        layer.setInput(1, *scalar.getOutput(0));
        return {Value(layer.getOutput(0)), Value(layer.getOutput(1))};
    }
    int64_t const k = ctx.opset() < 10 ? node.attrInt("k") : constantInts(node, 1, "K").at(0);
    auto& layer = topK(ctx, input, op, k, axis);
    return {Value(layer.getOutput(0)), Value(layer.getOutput(1))};
}

template <TopKOperation Op>
std::vector<Value> importArgExtreme(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int32_t const axis = normalizeAxis(node.attrInt("axis", 0), rank);
    bool const lastIndex = node.attrInt("select_last_index", 0) != 0;
    ITensor* data = &input;
    int64_t const extent = staticExtent(input, axis);
    if (lastIndex)
    {
        // Ties resolve to the first index; on the input reversed along axis, the first is the last.
        if (extent < 0)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "select_last_index needs the axis extent known at build time");
        }
        nvinfer1::Dims start = input.getDimensions();
        nvinfer1::Dims stride = start;
        for (int32_t i = 0; i < rank; ++i)
        {
            start.d[i] = i == axis ? extent - 1 : 0;
            stride.d[i] = i == axis ? -1 : 1;
        }
        data = ctx.check(ctx.network().addSlice(input, start, input.getDimensions(), stride), "reverse").getOutput(0);
    }
    ITensor* indices = topK(ctx, *data, Op, 1, axis).getOutput(1);
    if (lastIndex)
    {
        ITensor& last = scalarConstant(ctx, static_cast<double>(extent - 1), indices->getType(), rank);
        indices = &elementWise(ctx, last, *indices, nvinfer1::ElementWiseOperation::kSUB);
    }
    if (node.attrInt("keepdims", 1) == 0)
    {
        indices = &removeAxes(ctx, *indices, {axis});
    }
    return single(*indices);
}

} // namespace

ImporterRegistration const kTopKImporters([](ImporterTable& table) {
    table.add("TopK", importTopK);
    table.add("ArgMax", importArgExtreme<TopKOperation::kMAX>);
    table.add("ArgMin", importArgExtreme<TopKOperation::kMIN>);
});

} // namespace kiln::onnxparser
