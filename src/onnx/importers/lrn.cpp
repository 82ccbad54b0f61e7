// LRN (local response normalization across channels):
//   y = x / (bias + alpha / size * sum of x^2 over the `size` channels around c)^beta
// ONNX's formula is ILRNLayer's (TensorRT's worked example computes it: alpha divided by the window, the sum over the
// channels that exist), so a node the layer can take becomes one: a 4-D input, whose channel axis 1 is the layer's
// third from the end, and parameters within TensorRT's ranges (an odd size up to 15, alpha in [-1e20, 1e20], beta in
// [0.01, 1e5], bias in [1e-5, 1e10]). Any other node (an even size, whose window ONNX places one channel further
// after c than before, other ranks, a bias of 0) is made of layers Kiln has: the channel window's sum of squares is
// an average pooling of x^2 seen as [N, 1, C, spatial...] with a window of `size` along C (zeros padded: floor((size
// - 1) / 2) channels before, the rest after, counted in the average), times size.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include "core/data_type.h"

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

//! Whether ILRNLayer takes these parameters: TensorRT's ranges, with the bounds as the floats applications pass.
bool layerTakes(int64_t size, float alpha, float beta, float bias)
{
    return size >= 1 && size <= 15 && size % 2 == 1 && alpha >= -1.0e20F && alpha <= 1.0e20F && beta >= 0.01F
        && beta <= 1.0e5F && bias >= 1.0e-5F && bias <= 1.0e10F;
}

//! The formula from element-wise layers and a pooling, for what ILRNLayer does not take.
ITensor& composedLrn(ImportContext& ctx, ITensor& x, int64_t size, double alpha, double beta, double bias)
{
    int32_t const rank = rankOf(x);
    nvinfer1::DataType const type = x.getType();
    ITensor& sum = channelWindowSum(ctx, elementWise(ctx, x, x, ElementWiseOperation::kPROD), size);
    ITensor& scaled = elementWise(
        ctx, sum, scalarConstant(ctx, alpha / static_cast<double>(size), type, rank), ElementWiseOperation::kPROD);
    ITensor& base = elementWise(ctx, scaled, scalarConstant(ctx, bias, type, rank), ElementWiseOperation::kSUM);
    ITensor& denominator = elementWise(ctx, base, scalarConstant(ctx, beta, type, rank), ElementWiseOperation::kPOW);
    return elementWise(ctx, x, denominator, ElementWiseOperation::kDIV);
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
    float const alpha = node.attrFloat("alpha", 0.0001F);
    float const beta = node.attrFloat("beta", 0.75F);
    float const bias = node.attrFloat("bias", 1.0F);
    if (rank == 4 && isFloatType(x.getType()) && layerTakes(size, alpha, beta, bias))
    {
        return single(*ctx.check(ctx.network().addLRN(x, size, alpha, beta, bias), "LRN").getOutput(0));
    }
    return single(composedLrn(ctx, x, size, alpha, beta, bias));
}

} // namespace

ImporterRegistration const kLrnImporters([](ImporterTable& table) { table.add("LRN", importLrn); });

} // namespace kiln::onnxparser
