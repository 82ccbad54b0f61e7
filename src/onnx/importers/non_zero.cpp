// NonZero (opsets 9 and 13) through INonZeroLayer: the positions of the non-zero elements as the columns of an
// INT64 [rank, count] matrix, count known only once the layer has run. The layer refuses input types it does not
// take (such as strings), and the error names them.
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

} // namespace

ImporterRegistration const kNonZeroImporters([](ImporterTable& table) { table.add("NonZero", importNonZero); });

} // namespace kiln::onnxparser
