#include "onnx/shape_tensors.h"

#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{

using nvinfer1::ITensor;

int32_t shapeLength(ITensor& shape)
{
    nvinfer1::Dims const dims = shape.getDimensions();
    if (dims.nbDims != 1 || dims.d[0] < 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
            std::string("the length of shape tensor \"") + shape.getName() + "\" must be known at build time");
    }
    // A shape tensor lists one extent per axis; a longer one (a hostile model's) would also overflow the int32.
    if (dims.d[0] > nvinfer1::Dims::MAX_DIMS)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string("shape tensor \"") + shape.getName() + "\" has " + std::to_string(dims.d[0])
                + " extents; Kiln's tensors have at most " + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    return static_cast<int32_t>(dims.d[0]);
}

ITensor& shapeOf(ImportContext& ctx, ITensor& input)
{
    nvinfer1::Dims const dims = input.getDimensions();
    std::vector<int64_t> values(dims.d, dims.d + dims.nbDims);
    bool known = true;
    for (int64_t extent : values)
    {
        known = known && extent >= 0;
    }
    if (known)
    {
        return int64Constant(ctx, values);
    }
    return *ctx.check(ctx.network().addShape(input), "shape").getOutput(0);
}

ITensor& gatherDims(ImportContext& ctx, ITensor& shape, std::vector<int64_t> const& indices)
{
    ITensor& indexTensor = int64Constant(ctx, indices);
    return *ctx.check(ctx.network().addGather(shape, indexTensor, 0), "gather").getOutput(0);
}

ITensor& dimsRange(ImportContext& ctx, ITensor& shape, int64_t begin, int64_t end)
{
    if (begin >= end)
    {
        return int64Constant(ctx, {});
    }
    std::vector<int64_t> indices;
    for (int64_t i = begin; i < end; ++i)
    {
        indices.push_back(i);
    }
    return gatherDims(ctx, shape, indices);
}

ITensor& concatShapes(ImportContext& ctx, std::vector<ITensor*> const& pieces)
{
    std::vector<ITensor*> nonEmpty;
    for (ITensor* piece : pieces)
    {
        if (shapeLength(*piece) > 0)
        {
            nonEmpty.push_back(piece);
        }
    }
    if (nonEmpty.empty())
    {
        return int64Constant(ctx, {});
    }
    if (nonEmpty.size() == 1)
    {
        return *nonEmpty[0];
    }
    auto& layer = ctx.check(
        ctx.network().addConcatenation(nonEmpty.data(), static_cast<int32_t>(nonEmpty.size())), "concatenation");
    layer.setAxis(0);
    return *layer.getOutput(0);
}

ITensor& shapeMath(ImportContext& ctx, ITensor& a, ITensor& b, nvinfer1::ElementWiseOperation op)
{
    return *ctx.check(ctx.network().addElementWise(a, b, op), "shape arithmetic").getOutput(0);
}

ITensor& shapeProduct(ImportContext& ctx, ITensor& shape)
{
    int32_t const length = shapeLength(shape);
    ITensor* product = &int64Constant(ctx, {1});
    for (int32_t i = 0; i < length; ++i)
    {
        product = &shapeMath(ctx, *product, gatherDims(ctx, shape, {i}), nvinfer1::ElementWiseOperation::kPROD);
    }
    return *product;
}

} // namespace kiln::onnxparser
