// LRN (local response normalization across channels), which Kiln has no layer for, from layers it has:
//   y = x / (bias + alpha / size * sum of x^2 over the `size` channels around c)^beta
// The channel window's sum of squares is an average pooling of x^2 seen as [N, 1, C, spatial...] with a window of
// `size` along C (zeros padded: floor((size - 1) / 2) channels before, the rest after, counted in the average),
// times size.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! The sum of `squares` over a window of `size` channels around each channel, zeros beyond the ends.
ITensor& channelWindowSum(ImportContext& ctx, ITensor& squares, int64_t size)
{
    int32_t const rank = rankOf(squares);
    // [N, 1, C, spatial...]: the channels become the first pooled axis, each spatial axis one of window 1.
    ITensor& lifted = insertOnes(ctx, squares, {1});
    nvinfer1::Dims window{};
    nvinfer1::Dims before{};
    nvinfer1::Dims after{};
    window.nbDims = before.nbDims = after.nbDims = rank - 1;
    for (int32_t axis = 0; axis < window.nbDims; ++axis)
    {
        window.d[axis] = axis == 0 ? size : 1;
        before.d[axis] = axis == 0 ? (size - 1) / 2 : 0;
        after.d[axis] = axis == 0 ? size - 1 - (size - 1) / 2 : 0;
    }
    auto& pooling
        = ctx.check(ctx.network().addPoolingNd(lifted, nvinfer1::PoolingType::kAVERAGE, window), "channel window");
    pooling.setPrePadding(before);
    pooling.setPostPadding(after);
    pooling.setAverageCountExcludesPadding(false);
    ITensor& average = removeAxes(ctx, *pooling.getOutput(0), {1});
    return elementWise(ctx, average, scalarConstant(ctx, static_cast<double>(size), average.getType(), rank),
        ElementWiseOperation::kPROD);
}

std::vector<Value> importLrn(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(x);
    if (rank < 3)
    {
        fail(ErrorCode::kINVALID_NODE,
            "LRN's input must have a batch, channels and spatial axes, not rank " + std::to_string(rank));
    }
    int64_t const size = node.attrInt("size");
    if (size < 1)
    {
        fail(ErrorCode::kINVALID_NODE, "LRN's size must be positive, not " + std::to_string(size));
    }
    double const alpha = node.attrFloat("alpha", 0.0001F);
    double const beta = node.attrFloat("beta", 0.75F);
    double const bias = node.attrFloat("bias", 1.0F);
    nvinfer1::DataType const type = x.getType();
    ITensor& sum = channelWindowSum(ctx, elementWise(ctx, x, x, ElementWiseOperation::kPROD), size);
    ITensor& scaled = elementWise(
        ctx, sum, scalarConstant(ctx, alpha / static_cast<double>(size), type, rank), ElementWiseOperation::kPROD);
    ITensor& base = elementWise(ctx, scaled, scalarConstant(ctx, bias, type, rank), ElementWiseOperation::kSUM);
    ITensor& denominator = elementWise(ctx, base, scalarConstant(ctx, beta, type, rank), ElementWiseOperation::kPOW);
    return single(elementWise(ctx, x, denominator, ElementWiseOperation::kDIV));
}

} // namespace

ImporterRegistration const kLrnImporters([](ImporterTable& table) { table.add("LRN", importLrn); });

} // namespace kiln::onnxparser
