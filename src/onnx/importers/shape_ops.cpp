// Ops that move or reinterpret data without computing on it: Shape, Size, Reshape, Flatten, Transpose,
// Squeeze, Unsqueeze, Concat, Expand, Tile, DepthToSpace, SpaceToDepth and the Gather family.
// Shapes that are only known at run time are computed with shape tensors (see shape_tensors.h).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include "core/checked_size.h"

#include <algorithm>
#include <numeric>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

std::vector<Value> importShape(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    auto clampToRank = [rank](int64_t index) { return std::clamp<int64_t>(index < 0 ? index + rank : index, 0, rank); };
    int64_t const begin = clampToRank(node.attrInt("start", 0));
    int64_t const end = clampToRank(node.attrInt("end", rank));
    ITensor& shape = shapeOf(ctx, input);
    if (begin == 0 && end == rank)
    {
        return single(shape);
    }
    return single(dimsRange(ctx, shape, begin, end));
}

std::vector<Value> importSize(ImportContext& ctx, Node const& node)
{
    ITensor& count = shapeProduct(ctx, shapeOf(ctx, inputTensor(ctx, node, 0)));
    return single(reshape(ctx, count, std::vector<int64_t>{}));
}

std::vector<Value> importReshape(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    bool const allowZero = node.attrInt("allowzero", 0) != 0;
    auto& layer = ctx.check(ctx.network().addShuffle(input), "reshape");
    layer.setZeroIsPlaceholder(!allowZero);
    if (isConstantInput(node, 1))
    {
        std::vector<int64_t> const dims = node.input(1).constant().toInt64();
        if (dims.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the target shape has more than 8 dimensions");
        }
        nvinfer1::Dims target{};
        target.nbDims = static_cast<int32_t>(dims.size());
        std::copy(dims.begin(), dims.end(), target.d);
        layer.setReshapeDimensions(target);
    }
    else
    {
        layer.setInput(1, requireShapeValues(inputTensor(ctx, node, 1), "the target shape"));
    }
    return single(*layer.getOutput(0));
}

std::vector<Value> importFlatten(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int64_t axis = node.attrInt("axis", 1);
    if (axis < -rank || axis > rank)
    {
        fail(ErrorCode::kINVALID_NODE,
            "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    axis = axis < 0 ? axis + rank : axis;
    ITensor& shape = shapeOf(ctx, input);
    ITensor& rows = shapeProduct(ctx, dimsRange(ctx, shape, 0, axis));
    ITensor& columns = shapeProduct(ctx, dimsRange(ctx, shape, axis, rank));
    return single(reshape(ctx, input, concatShapes(ctx, {&rows, &columns})));
}

std::vector<Value> importTranspose(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    std::vector<int64_t> reversed(static_cast<size_t>(rank));
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    std::vector<int64_t> const perm = node.attrInts("perm", reversed);
    if (static_cast<int32_t>(perm.size()) != rank)
    {
        fail(ErrorCode::kINVALID_NODE,
            "perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
    }
    std::vector<int32_t> order;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t axis : perm)
    {
        int32_t const normalized = normalizeAxis(axis, rank, "perm entry");
        if (seen[normalized])
        {
            fail(ErrorCode::kINVALID_NODE, "perm repeats axis " + std::to_string(axis));
        }
        seen[normalized] = true;
        order.push_back(normalized);
    }
    return single(transpose(ctx, input, order));
}

//! Squeeze and Unsqueeze take axes as an attribute before opset 13, as an input since.
std::vector<int64_t> axesOf(ImportContext& ctx, Node const& node, bool& given)
{
    given = true;
    if (ctx.opset() < 13)
    {
        given = node.hasAttribute("axes");
        return node.attrInts("axes");
    }
    if (!node.hasInput(1))
    {
        given = false;
        return {};
    }
    return constantInts(node, 1, "axes");
}

std::vector<Value> importSqueeze(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    bool given = false;
    std::vector<int64_t> const axes = axesOf(ctx, node, given);
    std::vector<int32_t> removed;
    if (given)
    {
        for (int64_t axis : axes)
        {
            removed.push_back(normalizeAxis(axis, rank));
        }
    }
    else
    {
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            int64_t const extent = staticExtent(input, axis);
            if (extent < 0)
            {
                fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
                    "Squeeze without axes needs every extent known at build time");
            }
            if (extent == 1)
            {
                removed.push_back(axis);
            }
        }
    }
    return single(removeAxes(ctx, input, removed));
}

std::vector<Value> importUnsqueeze(ImportContext& ctx, Node const& node)
{
    bool given = false;
    std::vector<int64_t> const axes = axesOf(ctx, node, given);
    // A constant stays one, so that it can still be an input that must be constant (Slice's axes in the branch of an
    // If that torchvision's batched_nms exports).
    bool const constant = isConstantInput(node, 0);
    int32_t const inputRank = constant ? static_cast<int32_t>(node.input(0).constant().shape.size())
                                       : rankOf(inputTensor(ctx, node, 0));
    int32_t const outputRank = inputRank + static_cast<int32_t>(axes.size());
    std::vector<int32_t> inserted;
    for (int64_t axis : axes)
    {
        inserted.push_back(normalizeAxis(axis, outputRank));
    }
    std::sort(inserted.begin(), inserted.end());
    if (!constant)
    {
        return single(insertOnes(ctx, inputTensor(ctx, node, 0), inserted));
    }
    ConstantData unsqueezed = node.input(0).constant();
    for (int32_t axis : inserted)
    {
        unsqueezed.shape.insert(unsqueezed.shape.begin() + std::min<size_t>(axis, unsqueezed.shape.size()), 1);
    }
    unsqueezed.name.clear(); // another shape of the data: not the model's constant of that name
    return {Value(std::move(unsqueezed))};
}

std::vector<Value> importConcat(ImportContext& ctx, Node const& node)
{
    std::vector<ITensor*> inputs;
    for (int32_t i = 0; i < node.nbInputs(); ++i)
    {
        if (node.hasInput(i))
        {
            inputs.push_back(&inputTensor(ctx, node, i));
        }
    }
    if (inputs.empty())
    {
        fail(ErrorCode::kINVALID_NODE, "Concat needs at least one input");
    }
    int32_t const axis = normalizeAxis(node.attrInt("axis"), rankOf(*inputs[0]));
    // Kiln's network checks a concatenation's shapes as soon as it is added, along the default axis (rank - 3), where
    // ONNX's inputs may legitimately differ (e.g. a concat along the last of 5 dims). So the layer starts with input 0
    // in every slot, which always fits, gets its axis, and then takes the real inputs.
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        // The placeholders below postpone the network's own check to the build; check what is known now.
        if (rankOf(*inputs[i]) != rankOf(*inputs[0]))
        {
            fail(ErrorCode::kINVALID_NODE,
                "input " + std::to_string(i) + " has rank " + std::to_string(rankOf(*inputs[i]))
                    + " but input 0 has rank " + std::to_string(rankOf(*inputs[0])));
        }
        for (int32_t d = 0; d < rankOf(*inputs[0]); ++d)
        {
            int64_t const mine = staticExtent(*inputs[i], d);
            int64_t const first = staticExtent(*inputs[0], d);
            if (d != axis && mine >= 0 && first >= 0 && mine != first)
            {
                fail(ErrorCode::kINVALID_NODE,
                    "input " + std::to_string(i) + " has extent " + std::to_string(mine) + " on axis "
                        + std::to_string(d) + " where input 0 has " + std::to_string(first));
            }
        }
    }
    std::vector<ITensor*> const placeholders(inputs.size(), inputs[0]);
    auto& layer
        = ctx.check(ctx.network().addConcatenation(placeholders.data(), static_cast<int32_t>(placeholders.size())),
            "concatenation");
    layer.setAxis(axis);
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        layer.setInput(static_cast<int32_t>(i), *inputs[i]);
    }
    return single(*layer.getOutput(0));
}

//! The shape `wanted` broadcast with input's shape (numpy rules), and input with matching rank.
std::vector<Value> importExpand(ImportContext& ctx, Node const& node)
{
    ITensor* input = &inputTensor(ctx, node, 0);
    ITensor& wanted = requireShapeValues(inputTensor(ctx, node, 1), "the target shape");
    int32_t const rank = std::max(rankOf(*input), shapeLength(wanted));
    input = &prependOnes(ctx, *input, rank);
    ITensor& fullWanted = shapeLength(wanted) < rank
        ? concatShapes(ctx,
            {&int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank - shapeLength(wanted)), 1)), &wanted})
        : wanted;
    // Extents are equal or one of them is 1, so the larger is the result.
    ITensor& outputShape = shapeMath(ctx, shapeOf(ctx, *input), fullWanted, ElementWiseOperation::kMAX);
    return single(broadcastTo(ctx, *input, outputShape));
}

std::vector<Value> importTile(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    ITensor& repeats
        = castTo(ctx, requireShapeValues(inputTensor(ctx, node, 1), "repeats"), nvinfer1::DataType::kINT64);
    if (shapeLength(repeats) != rank)
    {
        fail(ErrorCode::kINVALID_NODE, "repeats needs one entry per input axis");
    }
    nvinfer1::Dims zeros{};
    zeros.nbDims = rank;
    nvinfer1::Dims ones = zeros;
    std::fill(ones.d, ones.d + rank, 1);
    auto& layer = ctx.check(ctx.network().addSlice(input, zeros, zeros, ones), "tile");
    layer.setMode(nvinfer1::SampleMode::kWRAP);
    layer.setInput(1, int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank), 0)));
    layer.setInput(2, shapeMath(ctx, shapeOf(ctx, input), repeats, ElementWiseOperation::kPROD));
    return single(*layer.getOutput(0));
}

//! [N, C, H, W] pieces of a rank-4 input's shape.
struct ImageShape
{
    ITensor* n;
    ITensor* c;
    ITensor* h;
    ITensor* w;
};

ImageShape imageShape(ImportContext& ctx, ITensor& input)
{
    if (rankOf(input) != 4)
    {
        fail(ErrorCode::kINVALID_NODE, "the input must have rank 4 (N, C, H, W)");
    }
    ITensor& shape = shapeOf(ctx, input);
    return {&gatherDims(ctx, shape, {0}), &gatherDims(ctx, shape, {1}), &gatherDims(ctx, shape, {2}),
        &gatherDims(ctx, shape, {3})};
}

std::vector<Value> importDepthToSpace(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int64_t const block = node.attrInt("blocksize");
    bool const crd = node.attrString("mode", "DCR") == "CRD";
    ImageShape const s = imageShape(ctx, input);
    ITensor& b = int64Constant(ctx, {block});
    ITensor& depth = shapeMath(ctx, *s.c, int64Constant(ctx, {block * block}), ElementWiseOperation::kFLOOR_DIV);
    // DCR: [N, b, b, C', H, W] -> [N, C', H, b, W, b]; CRD: [N, C', b, b, H, W] -> the same.
    ITensor& split = crd ? concatShapes(ctx, {s.n, &depth, &b, &b, s.h, s.w})
                         : concatShapes(ctx, {s.n, &b, &b, &depth, s.h, s.w});
    ITensor& moved = transpose(ctx, reshape(ctx, input, split),
        crd ? std::vector<int32_t>{0, 1, 4, 2, 5, 3} : std::vector<int32_t>{0, 3, 4, 1, 5, 2});
    ITensor& height = shapeMath(ctx, *s.h, b, ElementWiseOperation::kPROD);
    ITensor& width = shapeMath(ctx, *s.w, b, ElementWiseOperation::kPROD);
    return single(reshape(ctx, moved, concatShapes(ctx, {s.n, &depth, &height, &width})));
}

std::vector<Value> importSpaceToDepth(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int64_t const block = node.attrInt("blocksize");
    ImageShape const s = imageShape(ctx, input);
    ITensor& b = int64Constant(ctx, {block});
    ITensor& height = shapeMath(ctx, *s.h, b, ElementWiseOperation::kFLOOR_DIV);
    ITensor& width = shapeMath(ctx, *s.w, b, ElementWiseOperation::kFLOOR_DIV);
    // [N, C, H', b, W', b] -> [N, b, b, C, H', W'].
    ITensor& split = concatShapes(ctx, {s.n, s.c, &height, &b, &width, &b});
    ITensor& moved = transpose(ctx, reshape(ctx, input, split), {0, 3, 5, 1, 2, 4});
    ITensor& depth = shapeMath(ctx, *s.c, int64Constant(ctx, {block * block}), ElementWiseOperation::kPROD);
    return single(reshape(ctx, moved, concatShapes(ctx, {s.n, &depth, &height, &width})));
}

//! ONNX allows negative indices (counted from the end); Kiln's gather takes them in [0, extent).
ITensor& wrapNegativeIndices(ImportContext& ctx, Node const& node, ITensor& data, int32_t axis)
{
    if (isConstantInput(node, 1))
    {
        int64_t const extent = staticExtent(data, axis);
        ConstantData indices = node.input(1).constant();
        std::vector<int64_t> values = indices.toInt64();
        bool negative = std::any_of(values.begin(), values.end(), [](int64_t v) { return v < 0; });
        if (!negative)
        {
            return ctx.tensor(node.input(1));
        }
        // The wrapped copy is a computed constant: beyond the parser's budget, the select below wraps at run time.
        std::optional<size_t> const byteSize = checkedByteSize(static_cast<int64_t>(values.size()), sizeof(int64_t));
        if (extent >= 0 && byteSize && ctx.store().admitComputed(*byteSize))
        {
            for (int64_t& v : values)
            {
                v = v < 0 ? v + extent : v;
            }
            return ctx.tensor(Value(ctx.store().keepValues(nvinfer1::DataType::kINT64, indices.shape, values)));
        }
    }
    ITensor& indices = inputTensor(ctx, node, 1);
    ITensor& extent = castTo(ctx, gatherDims(ctx, shapeOf(ctx, data), {axis}), indices.getType());
    int32_t const rank = rankOf(indices);
    ITensor& extentScalar = rank == 0 ? reshape(ctx, extent, std::vector<int64_t>{}) : prependOnes(ctx, extent, rank);
    ITensor& isNegative
        = elementWise(ctx, indices, scalarConstant(ctx, 0, indices.getType(), rank), ElementWiseOperation::kLESS);
    ITensor& wrapped = elementWise(ctx, indices, extentScalar, ElementWiseOperation::kSUM);
    return *ctx.check(ctx.network().addSelect(isNegative, wrapped, indices), "select").getOutput(0);
}

std::vector<Value> importGather(ImportContext& ctx, Node const& node)
{
    ITensor& data = inputTensor(ctx, node, 0);
    int32_t const axis = normalizeAxis(node.attrInt("axis", 0), rankOf(data));
    ITensor& indices = wrapNegativeIndices(ctx, node, data, axis);
    return single(*ctx.check(ctx.network().addGather(data, indices, axis), "gather").getOutput(0));
}

std::vector<Value> importGatherElements(ImportContext& ctx, Node const& node)
{
    ITensor& data = inputTensor(ctx, node, 0);
    int32_t const axis = normalizeAxis(node.attrInt("axis", 0), rankOf(data));
    ITensor& indices = wrapNegativeIndices(ctx, node, data, axis);
    auto& layer = ctx.check(ctx.network().addGatherV2(data, indices, nvinfer1::GatherMode::kELEMENT), "gather");
    layer.setGatherAxis(axis);
    return single(*layer.getOutput(0));
}

std::vector<Value> importGatherND(ImportContext& ctx, Node const& node)
{
    ITensor& data = inputTensor(ctx, node, 0);
    ITensor& indices = inputTensor(ctx, node, 1);
    auto& layer = ctx.check(ctx.network().addGatherV2(data, indices, nvinfer1::GatherMode::kND), "gather");
    layer.setNbElementWiseDims(static_cast<int32_t>(node.attrInt("batch_dims", 0)));
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kShapeOpImporters([](ImporterTable& table) {
    table.add("Shape", importShape);
    table.add("Size", importSize);
    table.add("Reshape", importReshape);
    table.add("Flatten", importFlatten);
    table.add("Transpose", importTranspose);
    table.add("Squeeze", importSqueeze);
    table.add("Unsqueeze", importUnsqueeze);
    table.add("Concat", importConcat);
    table.add("Expand", importExpand);
    table.add("Tile", importTile);
    table.add("DepthToSpace", importDepthToSpace);
    table.add("SpaceToDepth", importSpaceToDepth);
    table.add("Gather", importGather);
    table.add("GatherElements", importGatherElements);
    table.add("GatherND", importGatherND);
});

} // namespace kiln::onnxparser
