#include "backend/attention_geometry.h"

#include <stdexcept>
#include <string>

namespace kiln::backend
{
namespace
{

std::string shapeText(Shape const& shape)
{
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    }
    return text + "]";
}

[[noreturn]] void misfit(char const* operand, Shape const& shape, std::string const& why)
{
    throw std::invalid_argument(
        std::string("attention: the ") + operand + " " + shapeText(shape) + " does not fit: " + why);
}

//! The element strides of `shape`'s leading axes, 0 where it is broadcast into the output's extents `batch`.
AttentionGeometry::BatchStrides batchStrides(
    char const* operand, Shape const& shape, AttentionGeometry const& g, Shape const& output)
{
    AttentionGeometry::BatchStrides strides{};
    Shape const contiguous = contiguousStrides(shape);
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        if (shape[axis] != g.batchExtents[axis] && shape[axis] != 1)
        {
            misfit(operand, shape, "its leading extents do not broadcast into the output's " + shapeText(output));
        }
        strides[axis] = shape[axis] == 1 ? 0 : contiguous[axis];
    }
    return strides;
}

} // namespace

AttentionGeometry attentionGeometry(Shape const& query, Shape const& keys, Shape const& values, Shape const* mask,
    Shape const& output, bool keysByRow)
{
    size_t const rank = output.size();
    if (rank < 2 || rank > AttentionGeometry::kMaxBatchAxes + 2)
    {
        misfit("output", output, "it needs 2 to " + std::to_string(AttentionGeometry::kMaxBatchAxes + 2) + " axes");
    }
    for (auto const& [name, shape] : {std::pair{"query", &query}, {"keys", &keys}, {"values", &values}})
    {
        if (shape->size() != rank)
        {
            misfit(name, *shape, "it needs the output's " + std::to_string(rank) + " axes");
        }
    }
    AttentionGeometry g;
    g.batchAxes = static_cast<int32_t>(rank - 2);
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        g.batchExtents[axis] = output[axis];
        g.batches *= output[axis];
    }
    g.queryStrides = batchStrides("query", query, g, output);
    g.keyStrides = batchStrides("keys", keys, g, output);
    g.valueStrides = batchStrides("values", values, g, output);
    g.queries = query[rank - 2];
    g.depth = query[rank - 1];
    g.keys = keysByRow ? keys[rank - 2] : keys[rank - 1];
    int64_t const keyDepth = keysByRow ? keys[rank - 1] : keys[rank - 2];
    if (keyDepth != g.depth)
    {
        misfit("keys", keys, "their depth is " + std::to_string(keyDepth) + " where the query's is "
            + std::to_string(g.depth));
    }
    if (values[rank - 2] != g.keys)
    {
        misfit("values", values, "they need one row per key (" + std::to_string(g.keys) + ")");
    }
    g.valueDepth = values[rank - 1];
    if (output[rank - 2] != g.queries || output[rank - 1] != g.valueDepth)
    {
        misfit("output", output, "it needs " + std::to_string(g.queries) + " x " + std::to_string(g.valueDepth));
    }
    if (mask == nullptr)
    {
        return g;
    }
    if (mask->size() != rank)
    {
        misfit("mask", *mask, "it needs the scores' " + std::to_string(rank) + " axes");
    }
    g.masked = true;
    g.maskStrides = batchStrides("mask", *mask, g, output);
    Shape const strides = contiguousStrides(*mask);
    auto const along = [&](size_t axis, int64_t extent) {
        if ((*mask)[axis] != extent && (*mask)[axis] != 1)
        {
            misfit("mask", *mask, "it does not broadcast into the scores (" + std::to_string(g.queries) + " x "
                + std::to_string(g.keys) + " per batch)");
        }
        return (*mask)[axis] == 1 ? int64_t{0} : strides[axis];
    };
    g.maskRowStride = along(rank - 2, g.queries);
    g.maskColumnStride = along(rank - 1, g.keys);
    return g;
}

} // namespace kiln::backend
