// Ops that make data: Constant, ConstantOfShape and Range (a fill layer when its bounds are known only at run
// time). Their outputs stay constant data where possible, so that importers downstream can read the values.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include <cmath>
#include <cstring>

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

std::vector<Value> importConstantOfShape(ImportContext& ctx, Node const& node)
{
    ConstantData const value = fillValue(ctx, node);
    size_t const size = elementSize(value.type);
    if (isConstantInput(node, 0))
    {
        std::vector<int64_t> const shape = node.input(0).constant().toInt64();
        int64_t count = 1;
        for (int64_t extent : shape)
        {
            if (extent < 0)
            {
                fail(ErrorCode::kINVALID_NODE, "the shape has a negative extent");
            }
            count *= extent;
        }
        std::vector<uint8_t> bytes(static_cast<size_t>(count) * size);
        for (int64_t i = 0; i < count; ++i)
        {
            std::memcpy(bytes.data() + static_cast<size_t>(i) * size, value.data, size);
        }
        return {Value(ctx.store().keep(value.type, shape, std::move(bytes), node.proto().output(0)))};
    }
    // A run-time shape: broadcast a one-element constant of the shape's rank.
    nvinfer1::ITensor& shape = requireShapeValues(inputTensor(ctx, node, 0), "the shape");
    int32_t const rank = shapeLength(shape);
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

std::vector<Value> importRange(ImportContext& ctx, Node const& node)
{
    if (!isConstantInput(node, 0) || !isConstantInput(node, 1) || !isConstantInput(node, 2))
    {
        return importRuntimeRange(ctx, node);
    }
    ConstantData const& startData = node.input(0).constant();
    double const start = startData.toDouble().at(0);
    double const limit = node.input(1).constant().toDouble().at(0);
    double const delta = node.input(2).constant().toDouble().at(0);
    if (delta == 0)
    {
        fail(ErrorCode::kINVALID_NODE, "Range's delta is 0");
    }
    auto const count = static_cast<int64_t>(std::max(std::ceil((limit - start) / delta), 0.0));
    std::string const& name = node.proto().output(0);
    switch (startData.type)
    {
    case DataType::kFLOAT:
    {
        std::vector<float> values(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i)
        {
            values[i] = static_cast<float>(start + static_cast<double>(i) * delta);
        }
        return {Value(ctx.store().keepValues(DataType::kFLOAT, {count}, values, name))};
    }
    case DataType::kINT32:
    {
        std::vector<int32_t> values(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i)
        {
            values[i] = static_cast<int32_t>(start + static_cast<double>(i) * delta);
        }
        return {Value(ctx.store().keepValues(DataType::kINT32, {count}, values, name))};
    }
    case DataType::kINT64:
    {
        std::vector<int64_t> values(static_cast<size_t>(count));
        auto const first = startData.toInt64().at(0);
        auto const step = node.input(2).constant().toInt64().at(0);
        for (int64_t i = 0; i < count; ++i)
        {
            values[i] = first + i * step;
        }
        return {Value(ctx.store().keepValues(DataType::kINT64, {count}, values, name))};
    }
    default: fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Range supports FLOAT, INT32 and INT64");
    }
}

} // namespace

ImporterRegistration const kConstantImporters([](ImporterTable& table) {
    table.add("Constant", importConstant);
    table.add("ConstantOfShape", importConstantOfShape);
    table.add("Range", importRange);
});

} // namespace kiln::onnxparser
