// Ops that make data: Constant, ConstantOfShape and Range (with constant bounds). Their outputs stay
// constant data where possible, so that importers downstream can read the values.
#include "onnx/importers/importers.h"
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
        return {Value(ctx.store().keepValues(DataType::kFLOAT, {}, std::vector<float>{node.attrFloat("value_float", 0)}, name))};
    }
    if (node.hasAttribute("value_floats"))
    {
        std::vector<float> const values = node.attrFloats("value_floats");
        return {Value(ctx.store().keepValues(DataType::kFLOAT, {static_cast<int64_t>(values.size())}, values, name))};
    }
    if (node.hasAttribute("value_int"))
    {
        return {Value(ctx.store().keepValues(DataType::kINT64, {}, std::vector<int64_t>{node.attrInt("value_int")}, name))};
    }
    if (node.hasAttribute("value_ints"))
    {
        std::vector<int64_t> const values = node.attrInts("value_ints");
        return {Value(ctx.store().keepValues(DataType::kINT64, {static_cast<int64_t>(values.size())}, values, name))};
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "a Constant needs a value, value_float(s) or value_int(s) attribute (sparse and string values are not supported)");
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

std::vector<Value> importRange(ImportContext& ctx, Node const& node)
{
    if (!isConstantInput(node, 0) || !isConstantInput(node, 1) || !isConstantInput(node, 2))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            "Range needs start, limit and delta to be initializers or Constants (Kiln has no fill layer yet)");
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

void registerConstantImporters(ImporterTable& table)
{
    table.add("Constant", importConstant);
    table.add("ConstantOfShape", importConstantOfShape);
    table.add("Range", importRange);
}

} // namespace kiln::onnxparser
