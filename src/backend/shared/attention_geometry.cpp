#include "backend/shared/attention_geometry.h"

#include "core/dims_text.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::backend
{
namespace
{

[[noreturn]] void misfit(char const* operand, Shape const& shape, std::string const& why)
{
    throw std::invalid_argument(
        std::string("attention: the ") + operand + " " + shapeText(shape) + " does not fit: " + why);
}

//! An operand as the layer reads it: its logical extents and the element stride of each, and the element it starts
//! at.
struct LogicalView
{
    Shape extents;
    Shape strides;
    int64_t start{0};
};

//! The view of an operand of `rank` axes stored as `stored`: logical axis i is stored axis axes.order[i], and where
//! `pick` picks, the operand is index pick.index of the stored axis pick.axis, which no logical axis is.
LogicalView logicalView(char const* operand, Shape const& stored, size_t rank, nvinfer1::Permutation const& axes,
    network::AttentionPick const& pick = {})
{
    size_t const storedRank = rank + (pick.picks() ? 1 : 0);
    if (stored.size() != storedRank)
    {
        misfit(operand, stored,
            "it needs " + std::to_string(storedRank) + " axes: the output's " + std::to_string(rank)
                + (pick.picks() ? ", and the one it is picked from" : ""));
    }
    Shape const storedStrides = contiguousStrides(stored);
    LogicalView view;
    std::vector<bool> taken(stored.size(), false);
    if (pick.picks())
    {
        auto const axis = static_cast<size_t>(pick.axis);
        if (axis >= stored.size() || pick.index < 0 || pick.index >= stored[axis])
        {
            misfit(operand, stored,
                "it is index " + std::to_string(pick.index) + " of axis " + std::to_string(pick.axis)
                    + ", which it does not have");
        }
        taken[axis] = true;
        view.start = pick.index * storedStrides[axis];
    }
    for (size_t i = 0; i < rank; ++i)
    {
        auto const axis = static_cast<size_t>(axes.order[i]);
        if (axes.order[i] < 0 || axis >= stored.size() || taken[axis])
        {
            misfit(operand, stored,
                "its axis order is not a permutation of its " + std::to_string(rank) + " axes"
                    + (pick.picks() ? " beside the one it is picked from" : ""));
        }
        taken[axis] = true;
        view.extents.push_back(stored[axis]);
        view.strides.push_back(storedStrides[axis]);
    }
    return view;
}

//! The strides of `view`'s leading axes, 0 where it is broadcast into the output's batch extents.
AttentionGeometry::BatchStrides batchStrides(
    char const* operand, LogicalView const& view, AttentionGeometry const& g, Shape const& output)
{
    AttentionGeometry::BatchStrides strides{};
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        if (view.extents[axis] != g.batchExtents[axis] && view.extents[axis] != 1)
        {
            misfit(
                operand, view.extents, "its leading extents do not broadcast into the output's " + shapeText(output));
        }
        strides[axis] = view.extents[axis] == 1 ? 0 : view.strides[axis];
    }
    return strides;
}

//! The operand's layout with rows along logical axis `rowAxis` and columns along `columnAxis`.
AttentionGeometry::Operand layoutOf(char const* operand, LogicalView const& view, AttentionGeometry const& g,
    Shape const& output, size_t rowAxis, size_t columnAxis)
{
    return AttentionGeometry::Operand{
        batchStrides(operand, view, g, output), view.strides[rowAxis], view.strides[columnAxis], view.start};
}

//! The mask's layout: broadcast along any axis where its extent is 1.
AttentionGeometry::Operand maskLayoutOf(Shape const& mask, AttentionGeometry const& g, Shape const& output)
{
    size_t const rank = output.size();
    if (mask.size() != rank)
    {
        misfit("mask", mask, "it needs the scores' " + std::to_string(rank) + " axes");
    }
    LogicalView const view{mask, contiguousStrides(mask), 0};
    auto const along = [&](size_t axis, int64_t extent) {
        if (mask[axis] != extent && mask[axis] != 1)
        {
            misfit("mask", mask,
                "it does not broadcast into the scores (" + std::to_string(g.queries) + " x " + std::to_string(g.keys)
                    + " per batch)");
        }
        return mask[axis] == 1 ? int64_t{0} : view.strides[axis];
    };
    return AttentionGeometry::Operand{
        batchStrides("mask", view, g, output), along(rank - 2, g.queries), along(rank - 1, g.keys)};
}

} // namespace

AttentionGeometry attentionGeometry(AttentionShapes const& shapes, network::AttentionParams const& params)
{
    size_t const rank = shapes.output.size();
    if (rank < 2 || rank > AttentionGeometry::kMaxBatchAxes + 2)
    {
        misfit(
            "output", shapes.output, "it needs 2 to " + std::to_string(AttentionGeometry::kMaxBatchAxes + 2) + " axes");
    }
    LogicalView const query = logicalView("query", shapes.query, rank, params.queryAxes, params.queryPick);
    LogicalView const keys = logicalView("keys", shapes.keys, rank, params.keyAxes, params.keyPick);
    LogicalView const values = logicalView("values", shapes.values, rank, params.valueAxes, params.valuePick);
    LogicalView const output = logicalView("output", shapes.output, rank, params.outputAxes);
    AttentionGeometry g;
    g.batchAxes = static_cast<int32_t>(rank - 2);
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        g.batchExtents[axis] = output.extents[axis];
        g.batches *= output.extents[axis];
    }
    g.queries = query.extents[rank - 2];
    g.depth = query.extents[rank - 1];
    size_t const keyAxis = params.keysByRow ? rank - 2 : rank - 1;
    size_t const keyDepthAxis = params.keysByRow ? rank - 1 : rank - 2;
    g.keys = keys.extents[keyAxis];
    if (keys.extents[keyDepthAxis] != g.depth)
    {
        misfit("keys", keys.extents,
            "their depth is " + std::to_string(keys.extents[keyDepthAxis]) + " where the query's is "
                + std::to_string(g.depth));
    }
    if (values.extents[rank - 2] != g.keys)
    {
        misfit("values", values.extents, "they need one row per key (" + std::to_string(g.keys) + ")");
    }
    g.valueDepth = values.extents[rank - 1];
    if (output.extents[rank - 2] != g.queries || output.extents[rank - 1] != g.valueDepth)
    {
        misfit(
            "output", output.extents, "it needs " + std::to_string(g.queries) + " x " + std::to_string(g.valueDepth));
    }
    g.queryLayout = layoutOf("query", query, g, shapes.output, rank - 2, rank - 1);
    g.keyLayout = layoutOf("keys", keys, g, shapes.output, keyAxis, keyDepthAxis);
    g.valueLayout = layoutOf("values", values, g, shapes.output, rank - 2, rank - 1);
    g.outputLayout = layoutOf("output", output, g, shapes.output, rank - 2, rank - 1);
    if (shapes.mask != nullptr)
    {
        g.masked = true;
        g.maskLayout = maskLayoutOf(*shapes.mask, g, shapes.output);
    }
    return g;
}

} // namespace kiln::backend
