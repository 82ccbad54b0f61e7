// MaxUnpool, which TensorRT has no layer for: X's values written into zeros at the positions I holds (MaxPool's
// indices, flattened over the whole unpooled tensor, batch and channels included), as one element scatter over the
// flattened tensor, whose extents along each spatial axis are
//   (in - 1) * stride + kernel - pad_begin - pad_end.
// Where output_shape asks for more, the result is padded with zeros around it (half before, the rest after: ONNX's
// node test grows each axis by one, which goes after); the indices still address the unpooled tensor. Kiln needs the
// extents at build time.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <functional>
#include <numeric>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

//! The unpooled extents the attributes give.
std::vector<int64_t> unpooledShape(Node const& node, ITensor& x)
{
    int32_t const rank = rankOf(x);
    auto const spatial = static_cast<size_t>(rank - 2);
    std::vector<int64_t> const kernel = node.attrInts("kernel_shape");
    std::vector<int64_t> const strides = node.attrInts("strides", std::vector<int64_t>(spatial, 1));
    std::vector<int64_t> const pads = node.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
    if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
    {
        fail(ErrorCode::kINVALID_NODE,
            "MaxUnpool's kernel_shape, strides and pads must cover its " + std::to_string(spatial) + " spatial axes");
    }
    std::vector<int64_t> shape;
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        int64_t const in = staticExtent(x, axis);
        if (in < 0)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "MaxUnpool needs its input's extents at build time");
        }
        auto const s = static_cast<size_t>(axis - 2);
        shape.push_back(axis < 2 ? in : (in - 1) * strides[s] + kernel[s] - pads[s] - pads[s + spatial]);
    }
    return shape;
}

//! `unpooled` padded with zeros to output_shape (input 2), half of each spatial axis's growth before it.
ITensor& padToOutputShape(ImportContext& ctx, Node const& node, ITensor& unpooled, std::vector<int64_t> const& shape)
{
    std::vector<int64_t> const wanted = constantInts(node, 2, "output_shape");
    if (wanted.size() != shape.size() || wanted[0] != shape[0] || wanted[1] != shape[1])
    {
        fail(ErrorCode::kINVALID_NODE, "MaxUnpool's output_shape must keep the input's rank, batch and channels");
    }
    nvinfer1::Dims before{};
    nvinfer1::Dims after{};
    before.nbDims = after.nbDims = static_cast<int32_t>(shape.size()) - 2;
    for (int32_t s = 0; s < before.nbDims; ++s)
    {
        int64_t const growth = wanted[s + 2] - shape[s + 2];
        if (growth < 0)
        {
            fail(ErrorCode::kINVALID_NODE, "MaxUnpool's output_shape is smaller than the unpooled tensor");
        }
        before.d[s] = growth / 2;
        after.d[s] = growth - growth / 2;
    }
    return *ctx.check(ctx.network().addPaddingNd(unpooled, before, after), "padding").getOutput(0);
}

std::vector<Value> importMaxUnpool(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    if (rankOf(x) < 3)
    {
        fail(ErrorCode::kINVALID_NODE, "MaxUnpool's input must have a batch, a channel and spatial axes");
    }
    std::vector<int64_t> const shape = unpooledShape(node, x);
    int64_t const count = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    nvinfer1::Dims flat{};
    flat.nbDims = 1;
    flat.d[0] = count;
    auto& zeros = ctx.check(ctx.network().addFill(flat, nvinfer1::FillOperation::kLINSPACE, x.getType()), "zeros");
    zeros.setAlpha(0.0);
    zeros.setBeta(0.0);
    ITensor& positions = reshape(ctx, inputTensor(ctx, node, 1), std::vector<int64_t>{-1});
    ITensor& values = reshape(ctx, x, std::vector<int64_t>{-1});
    auto& scatter = ctx.check(
        ctx.network().addScatter(*zeros.getOutput(0), positions, values, nvinfer1::ScatterMode::kELEMENT), "scatter");
    scatter.setAxis(0);
    ITensor& unpooled = reshape(ctx, *scatter.getOutput(0), shape);
    return single(node.hasInput(2) ? padToOutputShape(ctx, node, unpooled, shape) : unpooled);
}

} // namespace

ImporterRegistration const kMaxUnpoolImporters([](ImporterTable& table) { table.add("MaxUnpool", importMaxUnpool); });

} // namespace kiln::onnxparser
