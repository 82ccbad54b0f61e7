// The Reduce* family. Axes come from an attribute, or (ReduceSum since opset 13, the others since
// opset 18) from an optional input; no axes means all of them unless noop_with_empty_axes is set.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

enum class Before
{
    kNONE,
    kABS,
    kSQUARE,
    kEXP
};
enum class After
{
    kNONE,
    kSQRT,
    kLOG
};

ITensor& reduce(
    ImportContext& ctx, Node const& node, ReduceOperation op, Before before, After after, int64_t axesInputOpset)
{
    ITensor* input = &inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(*input);
    bool const keepDims = node.attrInt("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    if (ctx.opset() >= axesInputOpset)
    {
        if (node.hasInput(1))
        {
            axes = constantInts(node, 1, "axes");
        }
    }
    else
    {
        axes = node.attrInts("axes");
    }
    if (axes.empty())
    {
        if (node.attrInt("noop_with_empty_axes", 0) != 0)
        {
            return *ctx.check(ctx.network().addIdentity(*input), "identity").getOutput(0);
        }
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back(i);
        }
    }
    switch (before)
    {
    case Before::kABS: input = &unary(ctx, *input, UnaryOperation::kABS); break;
    case Before::kSQUARE: input = &elementWise(ctx, *input, *input, ElementWiseOperation::kPROD); break;
    case Before::kEXP: input = &unary(ctx, *input, UnaryOperation::kEXP); break;
    case Before::kNONE: break;
    }
    ITensor* result
        = ctx.check(ctx.network().addReduce(*input, op, axesMask(axes, rank), keepDims), "reduce").getOutput(0);
    switch (after)
    {
    case After::kSQRT: result = &unary(ctx, *result, UnaryOperation::kSQRT); break;
    case After::kLOG: result = &unary(ctx, *result, UnaryOperation::kLOG); break;
    case After::kNONE: break;
    }
    return *result;
}

template <ReduceOperation Op, Before B = Before::kNONE, After A = After::kNONE, int64_t AxesInputOpset = 18>
std::vector<Value> importReduce(ImportContext& ctx, Node const& node)
{
    return single(reduce(ctx, node, Op, B, A, AxesInputOpset));
}

} // namespace

ImporterRegistration const kReduceImporters([](ImporterTable& table) {
    table.add("ReduceSum", importReduce<ReduceOperation::kSUM, Before::kNONE, After::kNONE, 13>);
    table.add("ReduceMean", importReduce<ReduceOperation::kAVG>);
    table.add("ReduceMax", importReduce<ReduceOperation::kMAX>);
    table.add("ReduceMin", importReduce<ReduceOperation::kMIN>);
    table.add("ReduceProd", importReduce<ReduceOperation::kPROD>);
    table.add("ReduceL1", importReduce<ReduceOperation::kSUM, Before::kABS>);
    table.add("ReduceL2", importReduce<ReduceOperation::kSUM, Before::kSQUARE, After::kSQRT>);
    table.add("ReduceSumSquare", importReduce<ReduceOperation::kSUM, Before::kSQUARE>);
    table.add("ReduceLogSum", importReduce<ReduceOperation::kSUM, Before::kNONE, After::kLOG>);
    table.add("ReduceLogSumExp", importReduce<ReduceOperation::kSUM, Before::kEXP, After::kLOG>);
});

} // namespace kiln::onnxparser
