// ReverseSequence (opset 10) through IReverseSequenceLayer: ONNX's batch_axis and time_axis are the layer's batch and
// sequence axes, with the same defaults (1 and 0). ONNX allows only 0 and 1 for each and wants them to differ; the
// importer refuses anything else, naming the node, rather than leave it to the layer's shape inference. The int64
// sequence_lens go to the layer as they are (it takes INT32 or INT64).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

//! The value of axis attribute `name` (default `fallback`), which ONNX restricts to 0 or 1.
int32_t axisAttribute(Node const& node, char const* name, int64_t fallback)
{
    int64_t const axis = node.attrInt(name, fallback);
    if (axis != 0 && axis != 1)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string("ReverseSequence ") + name + " " + std::to_string(axis) + " is not 0 or 1");
    }
    return static_cast<int32_t>(axis);
}

std::vector<Value> importReverseSequence(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& input = inputTensor(ctx, node, 0);
    nvinfer1::ITensor& sequenceLens = inputTensor(ctx, node, 1);
    int32_t const batchAxis = axisAttribute(node, "batch_axis", 1);
    int32_t const timeAxis = axisAttribute(node, "time_axis", 0);
    if (batchAxis == timeAxis)
    {
        fail(ErrorCode::kINVALID_NODE,
            "ReverseSequence batch_axis and time_axis are both " + std::to_string(batchAxis) + "; they must differ");
    }
    auto& layer = ctx.check(ctx.network().addReverseSequence(input, sequenceLens), "reverse sequence");
    layer.setBatchAxis(batchAxis);
    layer.setSequenceAxis(timeAxis);
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kReverseSequenceImporters(
    [](ImporterTable& table) { table.add("ReverseSequence", importReverseSequence); });

} // namespace kiln::onnxparser
