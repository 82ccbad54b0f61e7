// If (opsets 1 to 21) through IIfConditional: each output is then_branch's if the condition holds, else
// else_branch's, and only the branch taken runs. A condition known while importing (a constant, as onnx-tensorrt
// also does) imports the taken branch alone. The branches may read the enclosing graph's values; their outputs must
// be tensors of one type and rank (sequences and optionals are not supported), and may differ in extents, which are
// then known once the conditional has run (torchvision's batched_nms returns an empty tensor for no boxes).
#include "onnx/graph_importer.h"
#include "onnx/import_error.h"
#include "onnx/importer_table.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

//! The condition as a 0-D BOOL tensor (ONNX allows any single-element tensor).
nvinfer1::ITensor& scalarCondition(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor* condition = &inputTensor(ctx, node, 0);
    nvinfer1::Dims const dims = condition->getDimensions();
    for (int32_t axis = 0; axis < dims.nbDims; ++axis)
    {
        if (dims.d[axis] != 1)
        {
            fail(ErrorCode::kINVALID_NODE,
                "the condition must hold a single element; its shape has extent " + std::to_string(dims.d[axis])
                    + " on axis " + std::to_string(axis));
        }
    }
    if (dims.nbDims > 0)
    {
        condition = &reshape(ctx, *condition, {});
    }
    if (condition->getType() != nvinfer1::DataType::kBOOL)
    {
        condition = &castTo(ctx, *condition, nvinfer1::DataType::kBOOL);
    }
    return *condition;
}

std::vector<Value> importIf(ImportContext& ctx, Node const& node)
{
    ::onnx::GraphProto const& thenBranch = node.attrGraph("then_branch");
    ::onnx::GraphProto const& elseBranch = node.attrGraph("else_branch");
    if (thenBranch.output_size() != elseBranch.output_size() || thenBranch.output_size() < node.nbOutputs())
    {
        fail(ErrorCode::kINVALID_NODE,
            "then_branch has " + std::to_string(thenBranch.output_size()) + " outputs and else_branch "
                + std::to_string(elseBranch.output_size()) + "; both must have the node's "
                + std::to_string(node.nbOutputs()));
    }
    if (node.hasInput(0) && node.input(0).isConstant())
    {
        std::vector<int64_t> const condition = node.input(0).constant().toInt64();
        if (condition.size() != 1)
        {
            fail(ErrorCode::kINVALID_NODE,
                "the condition must hold a single element, not " + std::to_string(condition.size()));
        }
        return importSubgraph(ctx, condition[0] != 0 ? thenBranch : elseBranch);
    }
    nvinfer1::ITensor& condition = scalarCondition(ctx, node);
    nvinfer1::IIfConditional* conditional = ctx.network().addIfConditional();
    ctx.check(conditional->setCondition(condition), "condition");
    std::vector<Value> const whenTrue = importSubgraph(ctx, thenBranch);
    std::vector<Value> const whenFalse = importSubgraph(ctx, elseBranch);
    ctx.beginNode(node.displayName()); // the outputs are the If node's own layers
    std::vector<Value> outputs;
    for (int32_t i = 0; i < node.nbOutputs(); ++i)
    {
        nvinfer1::IIfConditionalOutputLayer* output
            = conditional->addOutput(ctx.tensor(whenTrue[i]), ctx.tensor(whenFalse[i]));
        outputs.emplace_back(ctx.check(output, "conditional output").getOutput(0));
    }
    return outputs;
}

} // namespace

ImporterRegistration const kIfImporters([](ImporterTable& table) { table.add("If", importIf); });

} // namespace kiln::onnxparser
