#include "onnx/network_helpers.h"

#include "device_common/half.h"
#include "onnx/import_error.h"
#include "onnx/shape_tensors.h"

#include <algorithm>

namespace kiln::onnxparser
{

using nvinfer1::DataType;
using nvinfer1::ITensor;

int32_t rankOf(ITensor& tensor)
{
    return tensor.getDimensions().nbDims;
}

ITensor& inputTensor(ImportContext& ctx, Node const& node, int32_t index)
{
    return ctx.tensor(node.input(index));
}

int32_t normalizeAxis(int64_t axis, int32_t rank, char const* what)
{
    if (axis < -rank || axis >= rank)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

uint32_t axesMask(std::vector<int64_t> const& axes, int32_t rank)
{
    uint32_t mask = 0;
    for (int64_t axis : axes)
    {
        uint32_t const bit = 1U << normalizeAxis(axis, rank);
        if ((mask & bit) != 0)
        {
            fail(ErrorCode::kINVALID_NODE, "axis " + std::to_string(axis) + " is repeated");
        }
        mask |= bit;
    }
    return mask;
}

int64_t staticExtent(ITensor& input, int32_t axis)
{
    nvinfer1::Dims const dims = input.getDimensions();
    return axis < dims.nbDims ? dims.d[axis] : -1;
}

ITensor& reshape(ImportContext& ctx, ITensor& input, std::vector<int64_t> const& dims)
{
    nvinfer1::Dims target{};
    target.nbDims = static_cast<int32_t>(dims.size());
    std::copy(dims.begin(), dims.end(), target.d);
    auto& layer = ctx.check(ctx.network().addShuffle(input), "reshape");
    layer.setZeroIsPlaceholder(false);
    layer.setReshapeDimensions(target);
    return *layer.getOutput(0);
}

ITensor& reshape(ImportContext& ctx, ITensor& input, ITensor& shape)
{
    auto& layer = ctx.check(ctx.network().addShuffle(input), "reshape");
    layer.setZeroIsPlaceholder(false);
    layer.setInput(1, shape);
    return *layer.getOutput(0);
}

namespace
{

//! The input's dims when all are known at build time.
bool knownDims(ITensor& input, std::vector<int64_t>& dims)
{
    nvinfer1::Dims const d = input.getDimensions();
    dims.assign(d.d, d.d + d.nbDims);
    return std::all_of(dims.begin(), dims.end(), [](int64_t e) { return e >= 0; });
}

} // namespace

ITensor& insertOnes(ImportContext& ctx, ITensor& input, std::vector<int32_t> const& outputAxes)
{
    int32_t const inputRank = rankOf(input);
    int32_t const outputRank = inputRank + static_cast<int32_t>(outputAxes.size());
    std::vector<bool> isNew(static_cast<size_t>(outputRank), false);
    for (int32_t axis : outputAxes)
    {
        if (axis < 0 || axis >= outputRank || isNew[axis])
        {
            fail(ErrorCode::kINVALID_NODE, "axes to insert are out of range or repeated");
        }
        isNew[axis] = true;
    }
    std::vector<int64_t> dims;
    if (knownDims(input, dims))
    {
        std::vector<int64_t> out;
        size_t next = 0;
        for (int32_t i = 0; i < outputRank; ++i)
        {
            out.push_back(isNew[i] ? 1 : dims[next++]);
        }
        return reshape(ctx, input, out);
    }
    ITensor& shape = shapeOf(ctx, input);
    std::vector<ITensor*> pieces;
    int64_t next = 0;
    for (int32_t i = 0; i < outputRank; ++i)
    {
        pieces.push_back(isNew[i] ? &int64Constant(ctx, {1}) : &gatherDims(ctx, shape, {next++}));
    }
    return reshape(ctx, input, concatShapes(ctx, pieces));
}

ITensor& prependOnes(ImportContext& ctx, ITensor& input, int32_t rank)
{
    int32_t const missing = rank - rankOf(input);
    if (missing <= 0)
    {
        return input;
    }
    std::vector<int32_t> axes;
    for (int32_t i = 0; i < missing; ++i)
    {
        axes.push_back(i);
    }
    return insertOnes(ctx, input, axes);
}

ITensor& removeAxes(ImportContext& ctx, ITensor& input, std::vector<int32_t> const& axes)
{
    int32_t const rank = rankOf(input);
    std::vector<int64_t> kept;
    for (int32_t i = 0; i < rank; ++i)
    {
        if (std::find(axes.begin(), axes.end(), i) == axes.end())
        {
            kept.push_back(i);
        }
        else if (int64_t const extent = staticExtent(input, i); extent >= 0 && extent != 1)
        {
            fail(ErrorCode::kINVALID_NODE,
                "axis " + std::to_string(i) + " has extent " + std::to_string(extent)
                    + "; only extent-1 axes can be removed");
        }
    }
    std::vector<int64_t> dims;
    if (knownDims(input, dims))
    {
        std::vector<int64_t> out;
        for (int64_t i : kept)
        {
            out.push_back(dims[static_cast<size_t>(i)]);
        }
        return reshape(ctx, input, out);
    }
    return reshape(ctx, input, gatherDims(ctx, shapeOf(ctx, input), kept));
}

ITensor& transpose(ImportContext& ctx, ITensor& input, std::vector<int32_t> const& permutation)
{
    nvinfer1::Permutation order{};
    for (size_t i = 0; i < permutation.size(); ++i)
    {
        order.order[i] = permutation[i];
    }
    auto& layer = ctx.check(ctx.network().addShuffle(input), "transpose");
    layer.setFirstTranspose(order);
    return *layer.getOutput(0);
}

ITensor& castTo(ImportContext& ctx, ITensor& input, DataType type)
{
    if (input.getType() == type)
    {
        return input;
    }
    return *ctx.check(ctx.network().addCast(input, type), "cast").getOutput(0);
}

ITensor& elementWise(ImportContext& ctx, ITensor& a, ITensor& b, nvinfer1::ElementWiseOperation op)
{
    int32_t const rank = std::max(rankOf(a), rankOf(b));
    ITensor& left = prependOnes(ctx, a, rank);
    ITensor& right = prependOnes(ctx, b, rank);
    return *ctx.check(ctx.network().addElementWise(left, right, op), "element-wise").getOutput(0);
}

ITensor& unary(ImportContext& ctx, ITensor& input, nvinfer1::UnaryOperation op)
{
    return *ctx.check(ctx.network().addUnary(input, op), "unary").getOutput(0);
}

ITensor& activation(ImportContext& ctx, ITensor& input, nvinfer1::ActivationType type, float alpha, float beta)
{
    auto& layer = ctx.check(ctx.network().addActivation(input, type), "activation");
    layer.setAlpha(alpha);
    layer.setBeta(beta);
    return *layer.getOutput(0);
}

ITensor& scalarConstant(ImportContext& ctx, double value, DataType type, int32_t rank)
{
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    ConstantData constant;
    switch (type)
    {
    case DataType::kFLOAT:
        constant = ctx.store().keepValues(type, shape, std::vector<float>{static_cast<float>(value)});
        break;
    case DataType::kHALF:
        constant = ctx.store().keepValues(
            type, shape, std::vector<uint16_t>{kiln::floatToHalfBits(static_cast<float>(value))});
        break;
    case DataType::kBF16:
        constant = ctx.store().keepValues(
            type, shape, std::vector<uint16_t>{kiln::floatToBf16Bits(static_cast<float>(value))});
        break;
    case DataType::kINT32:
        constant = ctx.store().keepValues(type, shape, std::vector<int32_t>{static_cast<int32_t>(value)});
        break;
    case DataType::kINT64:
        constant = ctx.store().keepValues(type, shape, std::vector<int64_t>{static_cast<int64_t>(value)});
        break;
    case DataType::kINT8:
        constant = ctx.store().keepValues(type, shape, std::vector<int8_t>{static_cast<int8_t>(value)});
        break;
    case DataType::kUINT8:
    case DataType::kBOOL:
        constant = ctx.store().keepValues(type, shape, std::vector<uint8_t>{static_cast<uint8_t>(value)});
        break;
    default: fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "no constants of this data type");
    }
    return ctx.tensor(Value(constant));
}

ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values)
{
    ConstantData constant
        = ctx.store().keepValues(DataType::kINT64, std::vector<int64_t>{static_cast<int64_t>(values.size())}, values);
    return ctx.tensor(Value(constant));
}

ITensor& broadcastTo(ImportContext& ctx, ITensor& input, ITensor& shape)
{
    int32_t const rank = rankOf(input);
    nvinfer1::Dims zeros{};
    zeros.nbDims = rank;
    auto& layer = ctx.check(ctx.network().addSlice(input, zeros, zeros, zeros), "broadcast");
    // stride = min(extent - 1, 1): 0 along extents of 1 (repeat the element), 1 elsewhere.
    ITensor& one = int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 1));
    ITensor& extentMinusOne = shapeMath(ctx, shapeOf(ctx, input), one, nvinfer1::ElementWiseOperation::kSUB);
    ITensor& stride = shapeMath(ctx, extentMinusOne, one, nvinfer1::ElementWiseOperation::kMIN);
    // Optional inputs are set in order: setInput(i) may only append the next one.
    layer.setInput(1, int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 0)));
    layer.setInput(2, requireShapeValues(shape, "the target shape"));
    layer.setInput(3, stride);
    return *layer.getOutput(0);
}

ITensor& requireShapeValues(ITensor& tensor, char const* what)
{
    // An integer graph input becomes a shape tensor once a shape depends on it, which the layer about to read it
    // makes so; the network says so if it cannot be one (too many values).
    bool const integerInput = tensor.isNetworkInput()
        && (tensor.getType() == nvinfer1::DataType::kINT32 || tensor.getType() == nvinfer1::DataType::kINT64);
    if (!tensor.isShapeTensor() && !integerInput)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            std::string(what) + " (\"" + tensor.getName()
                + "\") must be computed from constants and shapes: Kiln needs its values while shapes are inferred");
    }
    return tensor;
}

bool isConstantInput(Node const& node, int32_t index)
{
    return node.hasInput(index) && node.input(index).isConstant();
}

std::vector<int64_t> constantInts(Node const& node, int32_t index, char const* what)
{
    if (!isConstantInput(node, index))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            std::string("input ") + std::to_string(index) + " (" + what
                + ") must be an initializer or a Constant: Kiln needs its values at build time");
    }
    return node.input(index).constant().toInt64();
}

std::vector<float> constantFloats(Node const& node, int32_t index, char const* what)
{
    if (!isConstantInput(node, index))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            std::string("input ") + std::to_string(index) + " (" + what
                + ") must be an initializer or a Constant: Kiln needs its values at build time");
    }
    return node.input(index).constant().toFloat();
}

nvinfer1::ILoop& newLoop(ImportContext& ctx)
{
    nvinfer1::ILoop* loop = ctx.network().addLoop();
    if (loop == nullptr)
    {
        fail(ErrorCode::kINTERNAL_ERROR, "the network refused a loop: " + ctx.lastNetworkError());
    }
    return *loop;
}

} // namespace kiln::onnxparser
