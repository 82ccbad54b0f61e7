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

} // namespace

AttentionGeometry attentionGeometry(Shape const& query, Shape const& keys, Shape const& values, Shape const* mask,
    Shape const& output, bool keysByRow)
{
    size_t const rank = query.size();
    if (rank < 2 || rank > AttentionGeometry::kMaxBatchAxes + 2)
    {
        misfit("query", query, "it needs 2 to " + std::to_string(AttentionGeometry::kMaxBatchAxes + 2) + " axes");
    }
    for (auto const& [name, shape] : {std::pair{"keys", &keys}, {"values", &values}, {"output", &output}})
    {
        if (shape->size() != rank)
        {
            misfit(name, *shape, "it needs the query's " + std::to_string(rank) + " axes");
        }
        for (size_t axis = 0; axis + 2 < rank; ++axis)
        {
            if ((*shape)[axis] != query[axis])
            {
                misfit(name, *shape, "its leading extents must equal the query's " + shapeText(query));
            }
        }
    }
    AttentionGeometry g;
    g.batchAxes = static_cast<int32_t>(rank - 2);
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        g.batchExtents[axis] = query[axis];
        g.batches *= query[axis];
    }
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
    Shape scores(query.begin(), query.end() - 2);
    scores.push_back(g.queries);
    scores.push_back(g.keys);
    Shape const strides = contiguousStrides(*mask);
    std::array<int64_t, AttentionGeometry::kMaxBatchAxes + 2> broadcastStrides{};
    for (size_t axis = 0; axis < rank; ++axis)
    {
        if ((*mask)[axis] != scores[axis] && (*mask)[axis] != 1)
        {
            misfit("mask", *mask, "it does not broadcast into the scores " + shapeText(scores));
        }
        broadcastStrides[axis] = (*mask)[axis] == 1 ? 0 : strides[axis];
    }
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        g.maskBatchStrides[axis] = broadcastStrides[axis];
    }
    g.maskRowStride = broadcastStrides[rank - 2];
    g.maskColumnStride = broadcastStrides[rank - 1];
    return g;
}

} // namespace kiln::backend
