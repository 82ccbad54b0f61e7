#include "backend/cuda/passes/constant_before_transpose.h"

#include "network/layers/constant.h"
#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cuda
{
using plan::LayerRecord;
using plan::PlanModel;
using plan::TensorRecord;

namespace
{

//! An element-wise layer to move before the transpose that writes one of its inputs.
struct Move
{
    size_t operation; //!< the element-wise layer
    size_t side;      //!< which of its inputs the transpose writes
    size_t transpose; //!< the shuffle
    size_t constant;  //!< the constant layer that writes its other input
};

bool soleReader(std::vector<std::vector<size_t>> const& readers, int32_t tensor, size_t layer)
{
    return readers[static_cast<size_t>(tensor)].size() == 1 && readers[static_cast<size_t>(tensor)][0] == layer;
}

//! Whether shuffle `layer` does nothing but its first transpose, which keeps the rank.
bool onlyTransposes(PlanModel const& model, LayerRecord const& layer)
{
    auto const* shuffle = paramsOf<network::ShuffleParams>(layer);
    if (shuffle == nullptr || layer.inputs.size() != 1 || layer.inputs[0] < 0 || layer.outputs.size() != 1
        || shuffle->reshape.has_value() || layer.epilogue.any())
    {
        return false;
    }
    size_t const rank = model.tensors[layer.inputs[0]].dims.size();
    if (model.tensors[layer.outputs[0]].dims.size() != rank)
    {
        return false;
    }
    for (size_t i = 0; i < rank; ++i)
    {
        if (shuffle->secondTranspose.order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! Whether constant tensor `t` has `rank` axes, at most one of them longer than 1: transposed, its values keep their
//! order.
bool movesAsItIs(PlanModel const& model, int32_t t, size_t rank)
{
    std::optional<std::vector<int64_t>> const dims = constantDims(model, t);
    return dims && dims->size() == rank
        && std::count_if(dims->begin(), dims->end(), [](int64_t d) { return d > 1; }) <= 1;
}

std::optional<Move> moveAt(PlanModel const& model, std::vector<std::vector<size_t>> const& readers,
    std::vector<int64_t> const& producers, size_t l, size_t side)
{
    LayerRecord const& layer = model.layers[l];
    int32_t const transposed = layer.inputs[side];
    int32_t const other = layer.inputs[1 - side];
    int32_t const output = layer.outputs[0];
    if (transposed < 0 || other < 0 || producers[transposed] < 0 || producers[other] < 0)
    {
        return std::nullopt;
    }
    auto const transpose = static_cast<size_t>(producers[transposed]);
    auto const constant = static_cast<size_t>(producers[other]);
    TensorRecord const& moved = model.tensors[transposed];
    bool const transposeFits = onlyTransposes(model, model.layers[transpose]) && soleReader(readers, transposed, l)
        && !isObserved(moved) && moved.type == model.tensors[output].type;
    bool const constantFits = fixedConstant(model.layers[constant]) != nullptr && !isObserved(model.tensors[other])
        && movesAsItIs(model, other, moved.dims.size());
    if (!transposeFits || !constantFits)
    {
        return std::nullopt;
    }
    return Move{l, side, transpose, constant};
}

//! The constant's axes put back where the transpose found them: its axis j was the transpose's input axis order[j].
void transposeBack(PlanModel& model, LayerRecord& constant, int32_t tensor, nvinfer1::Permutation const& order)
{
    auto backed = std::make_shared<network::ConstantParams>(*paramsOf<network::ConstantParams>(constant));
    std::vector<int32_t> const extents = model.tensors[tensor].dims;
    std::vector<int32_t>& backExtents = model.tensors[tensor].dims;
    for (size_t j = 0; j < extents.size(); ++j)
    {
        auto const axis = static_cast<size_t>(order.order[j]);
        backed->dimensions.d[axis] = paramsOf<network::ConstantParams>(constant)->dimensions.d[j];
        backExtents[axis] = extents[j];
    }
    constant.params = std::move(backed);
}

void apply(PlanModel& model, std::vector<std::vector<size_t>> const& readers, Move const& move)
{
    // The constant is transposed back for the operation alone. Equal constants are often one: an export shares equal
    // initializers (a stage's layer scales, all 1e-6 at random initialization), and the builder merges equal constants.
    std::optional<LayerRecord> copy = constantOwnedBy(model, readers, move.constant, move.operation, 1 - move.side);
    LayerRecord& operation = model.layers[move.operation];
    LayerRecord& transpose = model.layers[move.transpose];
    int32_t const source = transpose.inputs[0];
    int32_t const between = transpose.outputs[0];
    int32_t const output = operation.outputs[0];
    transposeBack(model, copy ? *copy : model.layers[move.constant], operation.inputs[1 - move.side],
        paramsOf<network::ShuffleParams>(transpose)->firstTranspose);
    // The operation now reads the transpose's input and writes the tensor between them, which takes that input's
    // extents; the transpose reads it and writes the operation's output.
    model.tensors[between].dims = model.tensors[source].dims;
    model.tensors[between].name = model.tensors[output].name + ", before " + transpose.name;
    operation.inputs[move.side] = source;
    operation.outputs[0] = between;
    transpose.inputs[0] = between;
    transpose.outputs[0] = output;
    // The transpose runs right after the operation, where the operation ran: everything between them reads neither.
    std::rotate(model.layers.begin() + static_cast<std::ptrdiff_t>(move.transpose),
        model.layers.begin() + static_cast<std::ptrdiff_t>(move.transpose) + 1,
        model.layers.begin() + static_cast<std::ptrdiff_t>(move.operation) + 1);
    if (copy)
    {
        // The operation's own constant runs right before it.
        model.layers.insert(model.layers.begin() + static_cast<std::ptrdiff_t>(move.operation) - 1, std::move(*copy));
    }
}

} // namespace

size_t moveConstantOperationsBeforeTransposes(PlanModel& model)
{
    size_t moved = 0;
    std::vector<std::vector<size_t>> readers = readersOf(model);
    std::vector<int64_t> producers = producersOf(model);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        if (layer.type != nvinfer1::LayerType::kELEMENTWISE || layer.inputs.size() != 2 || layer.outputs.size() != 1
            || layer.epilogue.any())
        {
            continue;
        }
        std::optional<Move> move = moveAt(model, readers, producers, l, 0);
        move = move ? move : moveAt(model, readers, producers, l, 1);
        if (!move)
        {
            continue;
        }
        apply(model, readers, *move);
        ++moved;
        readers = readersOf(model); // the layers between the two moved up by one, and a copied constant came in
        producers = producersOf(model);
    }
    return moved;
}

} // namespace kiln::cuda
