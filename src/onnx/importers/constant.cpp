// Ops that make data: Constant, ConstantOfShape and Range (a fill layer when its bounds are known only at run
// time). Their outputs stay constant data where possible, so that importers downstream can read the values.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include "core/checked_size.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;

std::vector<Value> importConstant(ImportContext& ctx, Node const& node)
{
    std::string const& name = node.proto().output(0);
    if (::onnx::TensorProto const* tensor = node.attrTensor("value"))
    {
        ConstantData data = readTensor(*tensor, ctx.modelDir(), ctx.store());
        data.name = name;
        return {Value(data)};
    }
    if (node.hasAttribute("value_float"))
    {
        return {Value(
            ctx.store().keepValues(DataType::kFLOAT, {}, std::vector<float>{node.attrFloat("value_float", 0)}, name))};
    }
    if (node.hasAttribute("value_floats"))
    {
        std::vector<float> const values = node.attrFloats("value_floats");
        return {Value(ctx.store().keepValues(DataType::kFLOAT, {static_cast<int64_t>(values.size())}, values, name))};
    }
    if (node.hasAttribute("value_int"))
    {
        return {
            Value(ctx.store().keepValues(DataType::kINT64, {}, std::vector<int64_t>{node.attrInt("value_int")}, name))};
    }
    if (node.hasAttribute("value_ints"))
    {
        std::vector<int64_t> const values = node.attrInts("value_ints");
        return {Value(ctx.store().keepValues(DataType::kINT64, {static_cast<int64_t>(values.size())}, values, name))};
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "a Constant needs a value, value_float(s) or value_int(s) attribute (sparse and string values are not "
        "supported)");
}

//! The fill value: a one-element tensor attribute, float 0 by default.
ConstantData fillValue(ImportContext& ctx, Node const& node)
{
    if (::onnx::TensorProto const* tensor = node.attrTensor("value"))
    {
        ConstantData value = readTensor(*tensor, ctx.modelDir(), ctx.store());
        if (value.count() != 1)
        {
            fail(ErrorCode::kINVALID_NODE, "the value attribute must hold exactly one element");
        }
        return value;
    }
    return ctx.store().keepValues(DataType::kFLOAT, {1}, std::vector<float>{0.0F});
}

//! "[2, 3, 4]", for messages.
std::string describeShape(std::vector<int64_t> const& shape)
{
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    }
    return text + "]";
}

//! ConstantOfShape's output as constant data, or nullopt when it is too large to be computed while parsing (see
//! ConstantStore's budget); refuses shapes whose size cannot be represented at all.
std::optional<ConstantData> filledConstant(ImportContext& ctx, Node const& node, ConstantData const& value)
{
    std::vector<int64_t> const shape = node.input(0).constant().toInt64();
    if (shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "the shape has " + std::to_string(shape.size()) + " extents; Kiln's tensors have at most "
                + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    size_t const size = elementSize(value.type);
    std::optional<int64_t> const count = checkedElementCount(shape);
    std::optional<size_t> const byteSize = count ? checkedByteSize(*count, size) : std::nullopt;
    if (!byteSize)
    {
        fail(ErrorCode::kINVALID_NODE,
            "the shape " + describeShape(shape) + " has a negative extent or more elements than a tensor of "
                + std::to_string(size) + "-byte elements can hold");
    }
    if (!ctx.store().admitComputed(*byteSize))
    {
        return std::nullopt;
    }
    std::vector<uint8_t> bytes(*byteSize);
    for (size_t offset = 0; offset < bytes.size(); offset += size)
    {
        std::memcpy(bytes.data() + offset, value.data, size);
    }
    return ctx.store().keep(value.type, shape, std::move(bytes), node.proto().output(0));
}

std::vector<Value> importConstantOfShape(ImportContext& ctx, Node const& node)
{
    ConstantData const value = fillValue(ctx, node);
    if (isConstantInput(node, 0))
    {
        if (std::optional<ConstantData> filled = filledConstant(ctx, node, value))
        {
            return {Value(*filled)};
        }
    }
    // A shape known at run time, or a constant too large to compute while parsing: broadcast a one-element constant
    // of the shape's rank.
    nvinfer1::ITensor& shape = requireShapeValues(inputTensor(ctx, node, 0), "the shape");
    int32_t const rank = shapeLength(shape);
    size_t const size = elementSize(value.type);
    std::vector<uint8_t> bytes(static_cast<uint8_t const*>(value.data), static_cast<uint8_t const*>(value.data) + size);
    ConstantData const element
        = ctx.store().keep(value.type, std::vector<int64_t>(static_cast<size_t>(rank), 1), std::move(bytes), {});
    return single(broadcastTo(ctx, ctx.tensor(Value(element)), shape));
}

//! Range's element count for integer bounds, max(ceil((limit - start) / delta), 0) computed exactly in INT64 as
//! -floor((start - limit) / delta), as a 1-D INT64 tensor of one element: a shape tensor when the bounds are.
nvinfer1::ITensor& integerRangeCount(
    ImportContext& ctx, nvinfer1::ITensor& start, nvinfer1::ITensor& limit, nvinfer1::ITensor& delta)
{
    using Op = nvinfer1::ElementWiseOperation;
    nvinfer1::ITensor& first = castTo(ctx, start, DataType::kINT64);
    nvinfer1::ITensor& last = castTo(ctx, limit, DataType::kINT64);
    nvinfer1::ITensor& step = castTo(ctx, delta, DataType::kINT64);
    nvinfer1::ITensor& floored = elementWise(ctx, elementWise(ctx, first, last, Op::kSUB), step, Op::kFLOOR_DIV);
    nvinfer1::ITensor& count = elementWise(ctx, scalarConstant(ctx, 0.0, DataType::kINT64, 0), floored, Op::kSUB);
    nvinfer1::ITensor& nonNegative = elementWise(ctx, count, scalarConstant(ctx, 0.0, DataType::kINT64, 0), Op::kMAX);
    return reshape(ctx, nonNegative, std::vector<int64_t>{1});
}

//! Range input `index` as an INT64 tensor when it is a whole number known while shapes are inferred: a constant,
//! or a value computed from shapes (torch.arange(n, dtype=torch.float) casts the size n to FLOAT); else null.
nvinfer1::ITensor* wholeNumberBound(ImportContext& ctx, Node const& node, int32_t index)
{
    if (isConstantInput(node, index))
    {
        double const value = node.input(index).constant().toDouble().at(0);
        return std::trunc(value) == value ? &scalarConstant(ctx, value, DataType::kINT64, 0) : nullptr;
    }
    nvinfer1::ITensor& bound = inputTensor(ctx, node, index);
    return bound.isShapeTensor() ? &castTo(ctx, bound, DataType::kINT64) : nullptr;
}

//! Range's element count as a 1-D INT64 tensor of one element. FLOAT bounds that are whole numbers known while
//! shapes are inferred count as integers, so the count stays a shape tensor; other FLOAT bounds go through float
//! division and a ceil (a count known only at run time, which Kiln refuses).
nvinfer1::ITensor& rangeCount(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& start = inputTensor(ctx, node, 0);
    nvinfer1::ITensor& limit = inputTensor(ctx, node, 1);
    nvinfer1::ITensor& delta = inputTensor(ctx, node, 2);
    if (start.getType() != DataType::kFLOAT)
    {
        return integerRangeCount(ctx, start, limit, delta);
    }
    nvinfer1::ITensor* first = wholeNumberBound(ctx, node, 0);
    nvinfer1::ITensor* last = wholeNumberBound(ctx, node, 1);
    nvinfer1::ITensor* step = wholeNumberBound(ctx, node, 2);
    if (first != nullptr && last != nullptr && step != nullptr)
    {
        return integerRangeCount(ctx, *first, *last, *step);
    }
    using Op = nvinfer1::ElementWiseOperation;
    nvinfer1::ITensor& steps = elementWise(ctx, elementWise(ctx, limit, start, Op::kSUB), delta, Op::kDIV);
    nvinfer1::ITensor& count = castTo(ctx, unary(ctx, steps, nvinfer1::UnaryOperation::kCEIL), DataType::kINT64);
    nvinfer1::ITensor& nonNegative = elementWise(ctx, count, scalarConstant(ctx, 0.0, DataType::kINT64, 0), Op::kMAX);
    return reshape(ctx, nonNegative, std::vector<int64_t>{1});
}

//! Range with bounds known only at run time: a kLINSPACE fill whose length, start and step are tensors.
std::vector<Value> importRuntimeRange(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& start = inputTensor(ctx, node, 0);
    nvinfer1::ITensor& limit = inputTensor(ctx, node, 1);
    nvinfer1::ITensor& delta = inputTensor(ctx, node, 2);
    DataType const type = start.getType();
    if (type != DataType::kFLOAT && type != DataType::kINT32 && type != DataType::kINT64)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Range supports FLOAT, INT32 and INT64");
    }
    if (limit.getType() != type || delta.getType() != type)
    {
        fail(ErrorCode::kINVALID_NODE, "Range's start, limit and delta must have one type");
    }
    for (nvinfer1::ITensor* bound : {&start, &limit, &delta})
    {
        if (rankOf(*bound) != 0)
        {
            fail(ErrorCode::kINVALID_NODE, "Range's start, limit and delta must be scalars (0-D)");
        }
    }
    // The count decides the output's extent, so Kiln must know it while shapes are inferred.
    nvinfer1::ITensor& count = requireShapeValues(rangeCount(ctx, node), "Range's length");
    nvinfer1::Dims empty{};
    empty.nbDims = 1;
    auto& fill = ctx.check(ctx.network().addFill(empty, nvinfer1::FillOperation::kLINSPACE, type), "range fill");
    fill.setInput(0, count);
    fill.setInput(1, start);
    fill.setInput(2, reshape(ctx, delta, std::vector<int64_t>{1})); // one delta for the one output dim
    return single(*fill.getOutput(0));
}

//! Range's length for integer bounds, ceil((limit - start) / delta) and at least 0, computed exactly (a double
//! loses whole numbers beyond 2^53); nullopt when limit - start does not fit in int64.
std::optional<int64_t> integerRangeLength(int64_t start, int64_t limit, int64_t delta)
{
    int64_t span = 0;
    if (__builtin_sub_overflow(limit, start, &span))
    {
        return std::nullopt;
    }
    if (span == 0 || (span > 0) != (delta > 0))
    {
        return 0;
    }
    // Same signs: divide the magnitudes, rounding up (unsigned, since either may be 2^63).
    uint64_t const distance = span > 0 ? static_cast<uint64_t>(span) : 0 - static_cast<uint64_t>(span);
    uint64_t const step = delta > 0 ? static_cast<uint64_t>(delta) : 0 - static_cast<uint64_t>(delta);
    uint64_t const length = distance / step + (distance % step != 0 ? 1 : 0);
    return length > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::nullopt
                                                                               : std::optional<int64_t>(length);
}

//! Range's length for constant bounds; fails on bounds that give no finite length.
int64_t constantRangeLength(Node const& node, ConstantData const& startData)
{
    if (startData.type == DataType::kINT32 || startData.type == DataType::kINT64)
    {
        int64_t const delta = node.input(2).constant().toInt64().at(0);
        std::optional<int64_t> const length = delta == 0
            ? std::nullopt
            : integerRangeLength(startData.toInt64().at(0), node.input(1).constant().toInt64().at(0), delta);
        if (!length)
        {
            fail(ErrorCode::kINVALID_NODE, "Range's delta is 0, or limit - start overflows INT64");
        }
        return *length;
    }
    double const start = startData.toDouble().at(0);
    double const limit = node.input(1).constant().toDouble().at(0);
    double const delta = node.input(2).constant().toDouble().at(0);
    double const length = std::max(std::ceil((limit - start) / delta), 0.0);
    // 2^63 as a double: any length from here on does not fit in int64 (nor in memory).
    if (delta == 0 || !std::isfinite(length) || length >= 9223372036854775808.0)
    {
        fail(ErrorCode::kINVALID_NODE,
            "Range's start " + std::to_string(start) + ", limit " + std::to_string(limit) + " and delta "
                + std::to_string(delta) + " give no finite length");
    }
    return static_cast<int64_t>(length);
}

//! Range's values as constant data: Accumulated is the type the values are computed in (double for FLOAT bounds, as
//! ONNX's reference computes them; int64 for integer bounds, whose values all lie between start and limit and so
//! never overflow), Stored the element type.
template <typename Stored, typename Accumulated>
std::vector<Value> keepRange(
    ImportContext& ctx, Node const& node, DataType type, int64_t count, Accumulated first, Accumulated step)
{
    std::vector<Stored> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        values[static_cast<size_t>(i)] = static_cast<Stored>(first + static_cast<Accumulated>(i) * step);
    }
    return {Value(ctx.store().keepValues(type, {count}, values, node.proto().output(0)))};
}

std::vector<Value> importRange(ImportContext& ctx, Node const& node)
{
    if (!isConstantInput(node, 0) || !isConstantInput(node, 1) || !isConstantInput(node, 2))
    {
        return importRuntimeRange(ctx, node);
    }
    ConstantData const& startData = node.input(0).constant();
    DataType const type = startData.type;
    if (type != DataType::kFLOAT && type != DataType::kINT32 && type != DataType::kINT64)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Range supports FLOAT, INT32 and INT64");
    }
    int64_t const count = constantRangeLength(node, startData);
    std::optional<size_t> const byteSize = checkedByteSize(count, elementSize(type));
    if (!byteSize || !ctx.store().admitComputed(*byteSize))
    {
        // Too long to compute while parsing: a fill layer makes it at run time.
        return importRuntimeRange(ctx, node);
    }
    ConstantData const& delta = node.input(2).constant();
    switch (type)
    {
    case DataType::kFLOAT:
        return keepRange<float>(ctx, node, type, count, startData.toDouble().at(0), delta.toDouble().at(0));
    case DataType::kINT32:
        return keepRange<int32_t>(ctx, node, type, count, startData.toInt64().at(0), delta.toInt64().at(0));
    default: return keepRange<int64_t>(ctx, node, type, count, startData.toInt64().at(0), delta.toInt64().at(0));
    }
}

} // namespace

ImporterRegistration const kConstantImporters([](ImporterTable& table) {
    table.add("Constant", importConstant);
    table.add("ConstantOfShape", importConstantOfShape);
    table.add("Range", importRange);
});

} // namespace kiln::onnxparser
