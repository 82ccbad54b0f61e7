#include "builder/view_layers.h"

#include "network/layers/constant.h"
#include "network/layers/gather.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

namespace kiln::builder
{
namespace
{

using nvinfer1::DimensionOperation;
using plan::ExprNode;
using plan::LayerRecord;
using plan::PlanModel;
using plan::TensorRecord;

constexpr auto kConstantKind = static_cast<uint8_t>(shape::ExprKind::kCONSTANT);

//! Appends expression nodes to a plan's table, folding what is known while building so that a view whose offset and
//! bounds are constants (every static shape) adds at most a constant.
class NodeMaker
{
public:
    explicit NodeMaker(PlanModel& model)
        : mModel(model)
    {
    }

    std::optional<int64_t> constantOf(int32_t node) const
    {
        ExprNode const& e = mModel.exprs[static_cast<size_t>(node)];
        return e.kind == kConstantKind ? std::optional<int64_t>(e.value) : std::nullopt;
    }

    bool isConstant(int32_t node, int64_t value) const
    {
        return constantOf(node) == value;
    }

    int32_t constant(int64_t value)
    {
        if (mConstants.empty())
        {
            for (size_t i = 0; i < mModel.exprs.size(); ++i)
            {
                if (mModel.exprs[i].kind == kConstantKind)
                {
                    mConstants.emplace(mModel.exprs[i].value, static_cast<int32_t>(i));
                }
            }
        }
        auto const found = mConstants.find(value);
        if (found != mConstants.end())
        {
            return found->second;
        }
        ExprNode node;
        node.kind = kConstantKind;
        node.value = value;
        return mConstants[value] = push(node);
    }

    //! `a op b` for kSUM, kPROD and kLESS; -1 where constants overflow (or an operand is -1).
    int32_t apply(DimensionOperation op, int32_t a, int32_t b)
    {
        if (a < 0 || b < 0)
        {
            return -1;
        }
        std::optional<int64_t> const x = constantOf(a);
        std::optional<int64_t> const y = constantOf(b);
        if (x && y)
        {
            return fold(op, *x, *y);
        }
        if (op == DimensionOperation::kSUM && (x == 0 || y == 0))
        {
            return x == 0 ? b : a;
        }
        if (op == DimensionOperation::kPROD && (x == 0 || y == 0))
        {
            return constant(0);
        }
        if (op == DimensionOperation::kPROD && (x == 1 || y == 1))
        {
            return x == 1 ? b : a;
        }
        if (op == DimensionOperation::kLESS && a == b)
        {
            return constant(0);
        }
        ExprNode node;
        node.kind = static_cast<uint8_t>(shape::ExprKind::kOPERATION);
        node.op = op;
        node.first = a;
        node.second = b;
        return push(node);
    }

private:
    int32_t fold(DimensionOperation op, int64_t x, int64_t y)
    {
        int64_t result = 0;
        switch (op)
        {
        case DimensionOperation::kSUM:
            if (__builtin_add_overflow(x, y, &result))
            {
                return -1;
            }
            break;
        case DimensionOperation::kPROD:
            if (__builtin_mul_overflow(x, y, &result))
            {
                return -1;
            }
            break;
        case DimensionOperation::kLESS: result = x < y ? 1 : 0; break;
        default: return -1;
        }
        return constant(result);
    }

    int32_t push(ExprNode const& node)
    {
        mModel.exprs.push_back(node);
        return static_cast<int32_t>(mModel.exprs.size() - 1);
    }

    PlanModel& mModel;
    std::unordered_map<int64_t, int32_t> mConstants;
};

//! Where a view starts in the tensor it reads (in elements), and its bounds condition (-1: none needed).
struct ViewPlace
{
    int32_t offset{-1};
    int32_t check{-1};
};

bool isUnit(PlanModel const& model, int32_t tensor, size_t axis)
{
    return plan::constantExtent(model, tensor, axis) == 1;
}

//! A shuffle that leaves every element where it lies in memory (a reshape, or channels moved last out of a
//! channels-last tensor, or back): a view at offset 0.
std::optional<ViewPlace> shufflePlace(PlanModel const& model, LayerRecord const& layer, NodeMaker& nodes)
{
    size_t const outSlot = layer.inputs.size();
    if (!plan::shuffleKeepsStoredOrder(
            model, layer, plan::slotFormat(model, layer, 0), plan::slotFormat(model, layer, outSlot)))
    {
        return std::nullopt;
    }
    return ViewPlace{nodes.constant(0), -1};
}

//! A slice's start or stride (`index` 1 or 3) as expression nodes, one per axis: the values of its shape-tensor
//! input, or its parameters; none where the input's values are not expressions of the plan.
std::optional<std::vector<int32_t>> sliceArgument(
    PlanModel const& model, LayerRecord const& layer, size_t index, nvinfer1::Dims const& fixed, NodeMaker& nodes)
{
    std::vector<int32_t> result;
    if (index < layer.inputs.size() && layer.inputs[index] >= 0)
    {
        std::optional<std::vector<int32_t>> const& values = model.tensors[layer.inputs[index]].values;
        if (!values)
        {
            return std::nullopt;
        }
        result = *values;
    }
    else
    {
        for (int32_t axis = 0; axis < fixed.nbDims; ++axis)
        {
            result.push_back(nodes.constant(fixed.d[axis]));
        }
    }
    if (result.size() != model.tensors[layer.inputs[0]].dims.size())
    {
        return std::nullopt;
    }
    return result;
}

//! A stride-1 slice keeps one contiguous block where every axis before some axis k keeps one index and every axis
//! after it is whole: the block starts at sum(start[j] * inner[j]) for j <= k (inner[j]: the input's elements per
//! index of axis j). Its bounds: each start[j] >= 0 and start[j] + size[j] <= extent[j] for j <= k.
std::optional<ViewPlace> slicePlace(
    PlanModel const& model, LayerRecord const& layer, std::vector<bool> const& sized, NodeMaker& nodes)
{
    auto const* slice = plan::paramsOf<network::SliceParams>(layer);
    if (slice->mode != nvinfer1::SampleMode::kSTRICT_BOUNDS)
    {
        return std::nullopt;
    }
    std::optional<std::vector<int32_t>> const start = sliceArgument(model, layer, 1, slice->start, nodes);
    std::optional<std::vector<int32_t>> const stride = sliceArgument(model, layer, 3, slice->stride, nodes);
    auto const knownBeforeRunning
        = [&](int32_t node) { return static_cast<size_t>(node) >= sized.size() || !sized[static_cast<size_t>(node)]; };
    if (!start || !stride || !std::all_of(start->begin(), start->end(), knownBeforeRunning))
    {
        return std::nullopt; // a start known only once a layer has run: the offset cannot be found beforehand
    }
    std::vector<int32_t> const& in = model.tensors[layer.inputs[0]].dims;
    std::vector<int32_t> const& out = model.tensors[layer.outputs[0]].dims;
    size_t const rank = in.size();
    size_t k = 0;
    while (k < rank && isUnit(model, layer.outputs[0], k))
    {
        ++k;
    }
    for (size_t j = k; j < rank; ++j)
    {
        bool const unitStride = nodes.isConstant((*stride)[j], 1) || isUnit(model, layer.outputs[0], j);
        bool const whole = j == k || (plan::sameExpr(model, out[j], in[j]) && nodes.isConstant((*start)[j], 0));
        if (!unitStride || !whole)
        {
            return std::nullopt;
        }
    }
    ViewPlace place{nodes.constant(0), nodes.constant(0)};
    int32_t inner = nodes.constant(1);
    for (size_t j = rank; j-- > 0;)
    {
        if (j <= k)
        {
            int32_t const s = (*start)[j];
            place.offset
                = nodes.apply(DimensionOperation::kSUM, place.offset, nodes.apply(DimensionOperation::kPROD, s, inner));
            int32_t const below = nodes.apply(DimensionOperation::kLESS, s, nodes.constant(0));
            int32_t const beyond
                = nodes.apply(DimensionOperation::kLESS, in[j], nodes.apply(DimensionOperation::kSUM, s, out[j]));
            place.check = nodes.apply(
                DimensionOperation::kSUM, place.check, nodes.apply(DimensionOperation::kSUM, below, beyond));
        }
        inner = nodes.apply(DimensionOperation::kPROD, inner, in[j]);
    }
    if (place.offset < 0 || place.check < 0)
    {
        return std::nullopt; // constants that overflow: the slice's kernel reports what is wrong
    }
    place.check = nodes.isConstant(place.check, 0) ? -1 : place.check;
    return place;
}

//! The one index a constant layer gives as `tensor` (INT32 or INT64, one element), if it does.
std::optional<int64_t> constantIndex(PlanModel const& model, int32_t tensor, std::vector<int64_t> const& producers)
{
    int64_t const producer = tensor >= 0 ? producers[static_cast<size_t>(tensor)] : -1;
    network::ConstantParams const* constant
        = producer >= 0 ? plan::fixedConstant(model.layers[static_cast<size_t>(producer)]) : nullptr;
    if (constant == nullptr || constant->weights.count() != 1)
    {
        return std::nullopt;
    }
    network::WeightsBuffer const& weights = constant->weights;
    if (weights.type() == nvinfer1::DataType::kINT32)
    {
        int32_t index = 0;
        std::memcpy(&index, weights.data(), sizeof(index));
        return index;
    }
    if (weights.type() == nvinfer1::DataType::kINT64)
    {
        int64_t index = 0;
        std::memcpy(&index, weights.data(), sizeof(index));
        return index;
    }
    return std::nullopt;
}

//! A gather of one index along one axis (kDEFAULT, no element-wise axes; the index a constant, as exports spell
//! `x[i]`) keeps one contiguous block where every axis before that axis has extent 1: index i's block starts at
//! i * inner (inner: the input's elements per index of the axis). A negative index counts from the end, as the
//! kernels' does. The index must lie inside the axis, whose extent must be a constant: otherwise the layer runs, and
//! its kernel reports an index outside it.
std::optional<ViewPlace> gatherPlace(
    PlanModel const& model, LayerRecord const& layer, std::vector<int64_t> const& producers, NodeMaker& nodes)
{
    auto const* gather = plan::paramsOf<network::GatherParams>(layer);
    if (gather->mode != nvinfer1::GatherMode::kDEFAULT || gather->numElementWiseDims != 0 || layer.inputs.size() != 2)
    {
        return std::nullopt;
    }
    int32_t const data = layer.inputs[0];
    std::vector<int32_t> const& in = model.tensors[data].dims;
    if (gather->gatherAxis < 0 || static_cast<size_t>(gather->gatherAxis) >= in.size())
    {
        return std::nullopt;
    }
    auto const axis = static_cast<size_t>(gather->gatherAxis);
    std::optional<int64_t> const index = constantIndex(model, layer.inputs[1], producers);
    std::optional<int64_t> const extent = plan::constantExtent(model, data, axis);
    if (!index || !extent)
    {
        return std::nullopt;
    }
    int64_t const wrapped = *index < 0 ? *index + *extent : *index;
    if (wrapped < 0 || wrapped >= *extent)
    {
        return std::nullopt;
    }
    for (size_t j = 0; j < axis; ++j)
    {
        if (!isUnit(model, data, j))
        {
            return std::nullopt;
        }
    }
    int32_t offset = nodes.constant(wrapped);
    for (size_t j = axis + 1; j < in.size(); ++j)
    {
        offset = nodes.apply(DimensionOperation::kPROD, offset, in[j]);
    }
    if (offset < 0)
    {
        return std::nullopt; // constants that overflow: the gather's kernel reports what is wrong
    }
    return ViewPlace{offset, -1};
}

//! Whether `layer` reads and writes each tensor as it is stored, nothing converted: row-major, or for a shuffle also
//! channels-last (kHWC), whose axis order shufflePlace takes into account.
bool readsAsStored(PlanModel const& model, LayerRecord const& layer)
{
    if (layer.type != nvinfer1::LayerType::kSHUFFLE)
    {
        return plan::linearThroughout(model, layer);
    }
    size_t slot = 0;
    for (auto const* tensors : {&layer.inputs, &layer.outputs})
    {
        for (int32_t t : *tensors)
        {
            nvinfer1::TensorFormat const format = plan::slotFormat(model, layer, slot++);
            if (t >= 0
                && (format != model.tensors[t].format
                    || (format != nvinfer1::TensorFormat::kLINEAR && format != nvinfer1::TensorFormat::kHWC)))
            {
                return false;
            }
        }
    }
    return true;
}

//! Whether layer `l` may make a view of its input at all, whatever its parameters: nothing converts, and both sides
//! are ordinary activations (or, for the input, a network input).
bool mayView(PlanModel const& model, size_t l, std::vector<int64_t> const& producers, std::vector<bool> const& sized)
{
    LayerRecord const& layer = model.layers[l];
    bool const kind = plan::paramsOf<network::ShuffleParams>(layer) != nullptr
        || plan::paramsOf<network::SliceParams>(layer) != nullptr
        || plan::paramsOf<network::GatherParams>(layer) != nullptr;
    if (!kind || layer.outputs.size() != 1 || layer.inputs.empty() || layer.inputs[0] < 0 || layer.epilogue.any()
        || !readsAsStored(model, layer))
    {
        return false;
    }
    int32_t const in = layer.inputs[0];
    int32_t const out = layer.outputs[0];
    TensorRecord const& input = model.tensors[in];
    TensorRecord const& output = model.tensors[out];
    size_t const outSlot = layer.inputs.size();
    if (input.type != output.type || plan::slotType(model, layer, 0) != input.type
        || plan::slotType(model, layer, outSlot) != output.type || elementSize(output.type) == 0)
    {
        return false;
    }
    if (output.ioMode != nvinfer1::TensorIOMode::kNONE || output.values || input.values)
    {
        return false;
    }
    // The viewed tensor: a constant's output is its weights (bound, or folded), which views gain nothing from.
    int32_t const viewed = input.viewOf >= 0 ? input.viewOf : in;
    int64_t const producer = producers[static_cast<size_t>(viewed)];
    if (producer >= 0 && model.layers[static_cast<size_t>(producer)].type == nvinfer1::LayerType::kCONSTANT)
    {
        return false;
    }
    for (TensorRecord const* tensor : {&input, &output})
    {
        for (int32_t node : tensor->dims)
        {
            if (sized[static_cast<size_t>(node)])
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace

size_t markViews(PlanModel& model)
{
    std::vector<int64_t> const producers = plan::producersOf(model);
    std::vector<bool> const sized = plan::sizeDependentNodes(model);
    NodeMaker nodes(model);
    size_t marked = 0;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (!mayView(model, l, producers, sized))
        {
            continue;
        }
        LayerRecord const& layer = model.layers[l];
        std::optional<ViewPlace> place;
        switch (layer.type)
        {
        case nvinfer1::LayerType::kSLICE: place = slicePlace(model, layer, sized, nodes); break;
        case nvinfer1::LayerType::kGATHER: place = gatherPlace(model, layer, producers, nodes); break;
        default: place = shufflePlace(model, layer, nodes); break;
        }
        if (!place)
        {
            continue;
        }
        TensorRecord const& input = model.tensors[layer.inputs[0]];
        TensorRecord view = model.tensors[layer.outputs[0]];
        view.viewOf = input.viewOf < 0 ? layer.inputs[0] : input.viewOf;
        view.viewOffset = place->offset;
        view.viewCheck = place->check;
        if (input.viewOf >= 0)
        {
            // A view of a view shows the same tensor: the offsets add up, and both bounds must hold.
            view.viewOffset = nodes.apply(DimensionOperation::kSUM, input.viewOffset, place->offset);
            view.viewCheck = input.viewCheck < 0 ? place->check
                : place->check < 0               ? input.viewCheck
                                                 : nodes.apply(DimensionOperation::kSUM, input.viewCheck, place->check);
        }
        if (view.viewOffset >= 0 && view.viewCheck >= -1 && (place->check < 0 || view.viewCheck >= 0))
        {
            model.tensors[layer.outputs[0]] = std::move(view);
            ++marked;
        }
    }
    return marked;
}

} // namespace kiln::builder
