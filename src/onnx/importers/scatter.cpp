// ScatterND (opsets 11, 13, 16, 18), ScatterElements (11, 13, 16, 18) and the deprecated Scatter (9, 11, which is
// ScatterElements) through IScatterLayer, in kND and kELEMENT mode. ONNX's axis (default 0) may be negative and is
// made non-negative here, naming the node when it is out of range. The reduction attribute (opset 16: add, mul;
// opset 18: max, min) goes to Kiln's extension kiln::setScatterReduction, where TensorRT's parser takes only none.
// ONNX's int64 indices go to the layer as they are; negative ones count from the end there.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <kiln/ScatterReduction.h>

namespace kiln::onnxparser
{
namespace
{

//! The node's reduction attribute (default "none") as Kiln's reduction.
ScatterReduction reductionAttribute(Node const& node)
{
    std::string const name = node.attrString("reduction", "none");
    for (auto const& [spelling, reduction] : {std::pair{"none", ScatterReduction::kNONE},
             std::pair{"add", ScatterReduction::kADD}, std::pair{"mul", ScatterReduction::kMUL},
             std::pair{"max", ScatterReduction::kMAX}, std::pair{"min", ScatterReduction::kMIN}})
    {
        if (name == spelling)
        {
            return reduction;
        }
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "reduction \"" + name + "\" is not none, add, mul, max or min");
}

//! A scatter of the node's data, indices and updates in `mode`, combining as its reduction attribute says.
nvinfer1::IScatterLayer& addScatter(ImportContext& ctx, Node const& node, nvinfer1::ScatterMode mode)
{
    nvinfer1::ITensor& data = inputTensor(ctx, node, 0);
    nvinfer1::ITensor& indices = inputTensor(ctx, node, 1);
    nvinfer1::ITensor& updates = inputTensor(ctx, node, 2);
    ScatterReduction const reduction = reductionAttribute(node);
    auto& layer = ctx.check(ctx.network().addScatter(data, indices, updates, mode), "scatter");
    setScatterReduction(layer, reduction);
    return layer;
}

std::vector<Value> importScatterND(ImportContext& ctx, Node const& node)
{
    return single(*addScatter(ctx, node, nvinfer1::ScatterMode::kND).getOutput(0));
}

std::vector<Value> importScatterElements(ImportContext& ctx, Node const& node)
{
    int32_t const axis = normalizeAxis(node.attrInt("axis", 0), rankOf(inputTensor(ctx, node, 0)));
    nvinfer1::IScatterLayer& layer = addScatter(ctx, node, nvinfer1::ScatterMode::kELEMENT);
    layer.setAxis(axis);
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kScatterImporters([](ImporterTable& table) {
    table.add("ScatterND", importScatterND);
    table.add("ScatterElements", importScatterElements);
    table.add("Scatter", importScatterElements);
});

} // namespace kiln::onnxparser
