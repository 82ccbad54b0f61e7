// NonZero (opsets 9 and 13) through INonZeroLayer: the positions of the non-zero elements as the columns of an
// INT64 [rank, count] matrix, count known only once the layer has run. The layer refuses input types it does not
// take (such as strings), and the error names them. Compress gathers the slices at the positions NonZero finds in
// its condition.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

std::vector<Value> importNonZero(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& input = inputTensor(ctx, node, 0);
    auto& layer = ctx.check(ctx.network().addNonZero(input), "non-zero");
    return single(*layer.getOutput(0));
}

//! Compress: the slices along `axis` (of the input flattened, where there is none) at the positions where the 1-D
//! condition is true; a condition shorter than the axis leaves the slices past its end out.
std::vector<Value> importCompress(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor* input = &inputTensor(ctx, node, 0);
    nvinfer1::ITensor& condition = inputTensor(ctx, node, 1);
    if (rankOf(condition) != 1)
    {
        fail(ErrorCode::kINVALID_NODE,
            "Compress's condition must be 1-D, not of rank " + std::to_string(rankOf(condition)));
    }
    int32_t axis = 0;
    if (node.hasAttribute("axis"))
    {
        axis = normalizeAxis(node.attrInt("axis"), rankOf(*input));
    }
    else
    {
        input = &reshape(ctx, *input, std::vector<int64_t>{-1});
    }
    auto& positions = ctx.check(ctx.network().addNonZero(condition), "non-zero"); // [1, count]
    nvinfer1::ITensor& picked = removeAxes(ctx, *positions.getOutput(0), {0});
    return single(*ctx.check(ctx.network().addGather(*input, picked, axis), "gather").getOutput(0));
}

} // namespace

ImporterRegistration const kNonZeroImporters([](ImporterTable& table) {
    table.add("NonZero", importNonZero);
    table.add("Compress", importCompress);
});

} // namespace kiln::onnxparser
