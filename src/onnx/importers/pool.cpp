// MaxPool, AveragePool and the global pools (reductions over the spatial axes).
#include "onnx/importer_table.h"
#include "onnx/importers/window_attributes.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

std::vector<Value> importPool(ImportContext& ctx, Node const& node, nvinfer1::PoolingType type)
{
    ITensor& input = inputTensor(ctx, node, 0);
    if (node.wantsOutput(1))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "MaxPool's Indices output is not supported");
    }
    std::vector<int64_t> const kernel = node.attrInts("kernel_shape");
    if (kernel.empty() || static_cast<int32_t>(kernel.size()) != rankOf(input) - 2)
    {
        fail(ErrorCode::kINVALID_NODE, "kernel_shape needs one extent per spatial axis of the input");
    }
    WindowAttributes const window = readWindowAttributes(node, kernel);
    for (int32_t i = 0; i < window.dilations.nbDims; ++i)
    {
        if (window.dilations.d[i] != 1)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "pooling with dilations other than 1 is not supported");
        }
    }
    auto& layer = ctx.check(ctx.network().addPoolingNd(input, type, window.kernel), "pooling");
    layer.setStrideNd(window.strides);
    layer.setPrePadding(window.prePadding);
    layer.setPostPadding(window.postPadding);
    bool const ceil = node.attrInt("ceil_mode", 0) != 0;
    layer.setPaddingMode(window.mode != nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN ? window.mode
            : ceil ? nvinfer1::PaddingMode::kEXPLICIT_ROUND_UP
                   : window.mode);
    if (type == nvinfer1::PoolingType::kAVERAGE)
    {
        layer.setAverageCountExcludesPadding(node.attrInt("count_include_pad", 0) == 0);
    }
    return single(*layer.getOutput(0));
}

std::vector<Value> importMaxPool(ImportContext& ctx, Node const& node)
{
    return importPool(ctx, node, nvinfer1::PoolingType::kMAX);
}

std::vector<Value> importAveragePool(ImportContext& ctx, Node const& node)
{
    return importPool(ctx, node, nvinfer1::PoolingType::kAVERAGE);
}

template <nvinfer1::ReduceOperation Op>
std::vector<Value> importGlobalPool(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    uint32_t axes = 0;
    for (int32_t axis = 2; axis < rank; ++axis)
    {
        axes |= 1U << axis;
    }
    if (axes == 0)
    {
        fail(ErrorCode::kINVALID_NODE, "the input has no spatial axes");
    }
    return single(*ctx.check(ctx.network().addReduce(input, Op, axes, true), "reduce").getOutput(0));
}

} // namespace

ImporterRegistration const kPoolImporters([](ImporterTable& table) {
    table.add("MaxPool", importMaxPool);
    table.add("AveragePool", importAveragePool);
    table.add("GlobalAveragePool", importGlobalPool<nvinfer1::ReduceOperation::kAVG>);
    table.add("GlobalMaxPool", importGlobalPool<nvinfer1::ReduceOperation::kMAX>);
});

} // namespace kiln::onnxparser
