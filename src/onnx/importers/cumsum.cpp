// CumSum through ICumulativeLayer (TensorRT 10's layer for it). The layer wants its axis as a 0-D tensor known at
// build time; ONNX gives a 0-D or one-element 1-D input.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

std::vector<Value> importCumSum(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& input = inputTensor(ctx, node, 0);
    std::vector<int64_t> const axis = constantInts(node, 1, "axis");
    if (axis.size() != 1)
    {
        fail(ErrorCode::kINVALID_NODE, "CumSum's axis must hold one value, not " + std::to_string(axis.size()));
    }
    int32_t const normalized = normalizeAxis(axis[0], rankOf(input));
    nvinfer1::ITensor& axisTensor = scalarConstant(ctx, static_cast<double>(normalized), nvinfer1::DataType::kINT32, 0);
    bool const exclusive = node.attrInt("exclusive", 0) != 0;
    bool const reverse = node.attrInt("reverse", 0) != 0;
    auto& layer = ctx.check(
        ctx.network().addCumulative(input, axisTensor, nvinfer1::CumulativeOperation::kSUM, exclusive, reverse),
        "cumulative");
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kCumSumImporters([](ImporterTable& table) { table.add("CumSum", importCumSum); });

} // namespace kiln::onnxparser
