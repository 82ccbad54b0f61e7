// Shrink, which TensorRT has no layer for, as two comparisons and two selects:
//   y = x + bias where x < -lambd, x - bias where x > lambd, 0 elsewhere.
#include "onnx/importer_table.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

ITensor& select(ImportContext& ctx, ITensor& condition, ITensor& then, ITensor& otherwise)
{
    return *ctx.check(ctx.network().addSelect(condition, then, otherwise), "select").getOutput(0);
}

std::vector<Value> importShrink(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(x);
    nvinfer1::DataType const type = x.getType();
    double const lambd = node.attrFloat("lambd", 0.5F);
    double const bias = node.attrFloat("bias", 0.0F);
    ITensor& below = elementWise(ctx, x, scalarConstant(ctx, -lambd, type, rank), ElementWiseOperation::kLESS);
    ITensor& above = elementWise(ctx, x, scalarConstant(ctx, lambd, type, rank), ElementWiseOperation::kGREATER);
    ITensor& biasValue = scalarConstant(ctx, bias, type, rank);
    ITensor& raised = elementWise(ctx, x, biasValue, ElementWiseOperation::kSUM);
    ITensor& lowered = elementWise(ctx, x, biasValue, ElementWiseOperation::kSUB);
    ITensor& zero = scalarConstant(ctx, 0.0, type, rank);
    return single(select(ctx, below, raised, select(ctx, above, lowered, zero)));
}

} // namespace

ImporterRegistration const kShrinkImporters([](ImporterTable& table) { table.add("Shrink", importShrink); });

} // namespace kiln::onnxparser
