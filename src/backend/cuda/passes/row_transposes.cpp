#include "backend/cuda/passes/row_transposes.h"

#include "backend/cuda/passes/shuffle_edits.h"
#include "network/fused/attention.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/quantize.h"
#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cuda
{
using nvinfer1::LayerType;
using nvinfer1::Permutation;
using plan::LayerRecord;
using plan::PlanModel;

namespace
{

//! Longer chains are not looked along: the exports' are three to five layers.
constexpr size_t kLongestChain = 16;

using Axes = std::vector<size_t>;

//! A transpose that reorders rows: its permutation moves axes [0, rows) among themselves and keeps the others.
struct RowTranspose
{
    size_t layer;
    Permutation order; //!< output axis i is input axis order.order[i]
    size_t rows;
};

//! One layer of a chain and which of its inputs the chain's tensor before it is.
struct Link
{
    size_t layer;
    size_t slot;
};

//! A chain of row-wise layers between two tensors, in the order data flows: tensors[0] -> links[0] -> tensors[1] ...
//! -> tensors.back(). `end` is the transpose or attention at the far side from the row transpose: it writes
//! tensors[0] where the row transpose reads tensors.back() (`backward`), else it reads tensors.back() and the row
//! transpose writes tensors[0].
struct Chain
{
    std::vector<Link> links;
    std::vector<int32_t> tensors;
    size_t end{0};
    bool backward{true};
};

std::optional<int64_t> constantNodeValue(PlanModel const& model, int32_t node)
{
    plan::ExprNode const& n = model.exprs[static_cast<size_t>(node)];
    if (n.kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT))
    {
        return std::nullopt;
    }
    return n.value;
}

//! Whether expression node `node` is the constant 1: an extent along which nothing moves.
bool isOne(PlanModel const& model, int32_t node)
{
    return constantNodeValue(model, node) == 1;
}

//! Whether `layer` runs whenever the network does, row-major, with one output and nothing fused into it.
bool plainLayer(PlanModel const& model, LayerRecord const& layer)
{
    return layer.guards.empty() && !layer.epilogue.any() && layer.outputs.size() == 1
        && plan::linearThroughout(model, layer);
}

bool madeByConstant(PlanModel const& model, std::vector<int64_t> const& producers, int32_t tensor)
{
    return tensor >= 0 && producers[static_cast<size_t>(tensor)] >= 0
        && model.layers[static_cast<size_t>(producers[static_cast<size_t>(tensor)])].type == LayerType::kCONSTANT;
}

std::optional<RowTranspose> rowTransposeAt(PlanModel const& model, size_t l)
{
    LayerRecord const& layer = model.layers[l];
    if (layer.type != LayerType::kSHUFFLE || !plainShuffle(layer) || !plainLayer(model, layer)
        || !keepsType(model, layer))
    {
        return std::nullopt;
    }
    std::optional<Permutation> const order = plan::transposeOf(model, layer);
    std::vector<int32_t> const& dims = model.tensors[layer.inputs[0]].dims;
    if (!order)
    {
        return std::nullopt;
    }
    size_t rows = 0;
    for (size_t i = 0; i < dims.size(); ++i)
    {
        rows = order->order[i] != static_cast<int32_t>(i) ? i + 1 : rows;
    }
    if (rows == 0 || rows >= dims.size())
    {
        return std::nullopt;
    }
    for (size_t i = 0; i < rows; ++i)
    {
        if (isOne(model, dims[i]))
        {
            return std::nullopt; // a transpose moving extents of 1 leaves the data where it is already
        }
    }
    return RowTranspose{l, *order, rows};
}

//! The slot through which row-wise layer `layer` reads `tensor`, where the layer is one the chains pass through.
std::optional<size_t> rowWiseSlot(
    PlanModel const& model, std::vector<int64_t> const& producers, LayerRecord const& layer, int32_t tensor)
{
    if (!plainLayer(model, layer) || layer.inputs.empty())
    {
        return std::nullopt;
    }
    switch (layer.type)
    {
    case LayerType::kSHUFFLE:
    {
        auto const* shuffle = plan::paramsOf<network::ShuffleParams>(layer);
        return plainShuffle(layer) && shuffle->reshapesOnly() && layer.inputs[0] == tensor ? std::optional<size_t>(0)
                                                                                           : std::nullopt;
    }
    case LayerType::kMATRIX_MULTIPLY:
    {
        auto const* product = plan::paramsOf<network::MatrixMultiplyParams>(layer);
        if (product == nullptr || layer.inputs.size() != 2 || layer.inputs[0] != tensor
            || product->op0 != nvinfer1::MatrixOperation::kNONE || product->op1 == nvinfer1::MatrixOperation::kVECTOR
            || !madeByConstant(model, producers, layer.inputs[1]))
        {
            return std::nullopt;
        }
        std::vector<int32_t> const& weights = model.tensors[layer.inputs[1]].dims;
        if (weights.size() != model.tensors[tensor].dims.size())
        {
            return std::nullopt;
        }
        for (size_t a = 0; a + 2 < weights.size(); ++a)
        {
            if (!isOne(model, weights[a]))
            {
                return std::nullopt;
            }
        }
        return 0;
    }
    case LayerType::kELEMENTWISE:
        if (layer.inputs.size() == 2 && layer.inputs[0] == tensor && madeByConstant(model, producers, layer.inputs[1]))
        {
            return 0;
        }
        if (layer.inputs.size() == 2 && layer.inputs[1] == tensor && madeByConstant(model, producers, layer.inputs[0]))
        {
            return 1;
        }
        return std::nullopt;
    case LayerType::kQUANTIZE:
    case LayerType::kDEQUANTIZE:
        for (size_t i = 1; i < layer.inputs.size(); ++i)
        {
            if (layer.inputs[i] >= 0 && !madeByConstant(model, producers, layer.inputs[i]))
            {
                return std::nullopt;
            }
        }
        return layer.inputs[0] == tensor ? std::optional<size_t>(0) : std::nullopt;
    case LayerType::kACTIVATION:
    case LayerType::kUNARY: return layer.inputs.size() == 1 && layer.inputs[0] == tensor ? 0 : std::optional<size_t>();
    default: return std::nullopt;
    }
}

//! The number of leading axes of `dims` that hold rows, where its trailing axes hold `rowElements` each (constant
//! extents multiplying to it; the fewest such axes); none where no suffix does.
std::optional<size_t> rowAxesHolding(PlanModel const& model, std::vector<int32_t> const& dims, int64_t rowElements)
{
    int64_t product = 1;
    for (size_t axes = dims.size(); axes > 0; --axes)
    {
        if (product == rowElements)
        {
            return axes;
        }
        std::optional<int64_t> const extent = constantNodeValue(model, dims[axes - 1]);
        if (!extent)
        {
            return std::nullopt;
        }
        product *= *extent;
    }
    return product == rowElements ? std::optional<size_t>(0) : std::nullopt;
}

//! The elements of a row of `dims` whose first `rows` axes hold rows; none where an extent after them is not a
//! build-time constant.
std::optional<int64_t> rowElements(PlanModel const& model, std::vector<int32_t> const& dims, size_t rows)
{
    int64_t product = 1;
    for (size_t a = rows; a < dims.size(); ++a)
    {
        std::optional<int64_t> const extent = constantNodeValue(model, dims[a]);
        if (!extent)
        {
            return std::nullopt;
        }
        product *= *extent;
    }
    return product;
}

//! Row axes of the tensor on the other side of chain layer `layer` from a tensor of `fromDims` whose first `rows`
//! axes hold rows: the same for layers that keep the shape, the last but one for a product (whose rows must be the
//! axes before the last), and those holding whole rows for a reshape.
std::optional<size_t> rowAxesAcross(PlanModel const& model, LayerRecord const& layer,
    std::vector<int32_t> const& fromDims, size_t rows, std::vector<int32_t> const& toDims)
{
    if (layer.type == LayerType::kMATRIX_MULTIPLY)
    {
        return rows + 1 == fromDims.size() ? std::optional<size_t>(toDims.size() - 1) : std::nullopt;
    }
    if (layer.type == LayerType::kSHUFFLE)
    {
        std::optional<int64_t> const elements = rowElements(model, fromDims, rows);
        return elements ? rowAxesHolding(model, toDims, *elements) : std::nullopt;
    }
    return fromDims.size() == toDims.size() ? std::optional<size_t>(rows) : std::nullopt;
}

//! Whether chain layer `layer`'s other operands broadcast alike over any order of the rows: extents of 1 along the
//! row axes of a constant it adds or multiplies, a quantization's axis within a row.
bool operandsFollowRows(PlanModel const& model, LayerRecord const& layer, size_t slot, size_t rows)
{
    if (layer.type == LayerType::kELEMENTWISE)
    {
        std::vector<int32_t> const& other = model.tensors[layer.inputs[1 - slot]].dims;
        for (size_t a = 0; a < rows && a < other.size(); ++a)
        {
            if (!isOne(model, other[a]))
            {
                return false;
            }
        }
        return other.size() == model.tensors[layer.inputs[slot]].dims.size();
    }
    if (layer.type == LayerType::kQUANTIZE || layer.type == LayerType::kDEQUANTIZE)
    {
        std::vector<int32_t> const& scale = model.tensors[layer.inputs[1]].dims;
        bool single = true;
        for (int32_t extent : scale)
        {
            single = single && isOne(model, extent);
        }
        auto const* quantize = plan::paramsOf<network::QuantizeParams>(layer);
        auto const* dequantize = plan::paramsOf<network::DequantizeParams>(layer);
        int32_t const axis = quantize != nullptr ? quantize->axis : dequantize != nullptr ? dequantize->axis : -1;
        auto const rank = static_cast<int32_t>(model.tensors[layer.inputs[0]].dims.size());
        return single || (axis >= 0 ? axis : axis + rank) >= static_cast<int32_t>(rows);
    }
    return true;
}

class RowTransposeFolder
{
public:
    explicit RowTransposeFolder(PlanModel& model)
        : mModel(model)
        , mReaders(plan::readersOf(model))
        , mProducers(plan::producersOf(model))
    {
    }

    //! Folds the row transpose `t` where a chain joins it to another reorder; false where none does, or the chain's
    //! reshapes cannot be stated again. The transpose's layer is left in place, reading and writing nothing the
    //! network needs: the caller erases it.
    bool fold(RowTranspose const& t)
    {
        for (bool backward : {true, false})
        {
            std::optional<Chain> const chain = chainFrom(t, backward);
            if (chain && rewrite(t, *chain))
            {
                return true;
            }
        }
        return false;
    }

private:
    //! The layer that alone reads `tensor`, where it is an internal activation nobody else sees.
    std::optional<size_t> soleReader(int32_t tensor) const
    {
        return plan::soleReaderOf(mModel, mReaders, tensor);
    }

    //! Whether layer `l` reorders axes the row transpose can be folded into: a transpose (without a reshape), or, on
    //! the side that writes the chain, a fused attention.
    bool takesReorders(size_t l, bool writesChain) const
    {
        LayerRecord const& layer = mModel.layers[l];
        if (layer.type == network::kAttentionLayerType)
        {
            return writesChain && plainLayer(mModel, layer);
        }
        return layer.type == LayerType::kSHUFFLE && plainShuffle(layer) && plainLayer(mModel, layer)
            && plan::transposeOf(mModel, layer).has_value();
    }

    std::optional<Chain> chainFrom(RowTranspose const& t, bool backward) const
    {
        LayerRecord const& transpose = mModel.layers[t.layer];
        Chain chain;
        chain.backward = backward;
        int32_t tensor = backward ? transpose.inputs[0] : transpose.outputs[0];
        chain.tensors.push_back(tensor);
        for (size_t step = 0; step <= kLongestChain; ++step)
        {
            if (isObserved(mModel.tensors[tensor]) || (backward && !soleReader(tensor)))
            {
                return std::nullopt;
            }
            std::optional<size_t> next;
            if (backward)
            {
                next = mProducers[tensor] >= 0 ? std::optional<size_t>(mProducers[tensor]) : std::nullopt;
            }
            else
            {
                next = soleReader(tensor);
            }
            if (!next)
            {
                return std::nullopt;
            }
            if (takesReorders(*next, backward))
            {
                chain.end = *next;
                break;
            }
            LayerRecord const& layer = mModel.layers[*next];
            if (backward)
            {
                // The chain's tensor before this layer is the input through which rows pass: try each.
                std::optional<size_t> slot;
                for (size_t s = 0; s < layer.inputs.size() && !slot; ++s)
                {
                    slot = rowWiseSlot(mModel, mProducers, layer, layer.inputs[s]);
                    slot = slot && *slot == s ? slot : std::nullopt;
                }
                if (!slot)
                {
                    return std::nullopt;
                }
                chain.links.push_back(Link{*next, *slot});
                tensor = layer.inputs[*slot];
            }
            else
            {
                std::optional<size_t> const slot = rowWiseSlot(mModel, mProducers, layer, tensor);
                if (!slot)
                {
                    return std::nullopt;
                }
                chain.links.push_back(Link{*next, *slot});
                tensor = layer.outputs[0];
            }
            chain.tensors.push_back(tensor);
            if (step == kLongestChain)
            {
                return std::nullopt;
            }
        }
        if (backward)
        {
            std::reverse(chain.links.begin(), chain.links.end());
            std::reverse(chain.tensors.begin(), chain.tensors.end());
        }
        return chain;
    }

    //! Folds `t` through `chain`: false, with nothing changed, where a tensor of the chain does not hold its rows as
    //! the transpose's or the reshapes cannot be stated again.
    bool rewrite(RowTranspose const& t, Chain const& chain)
    {
        LayerRecord const& transpose = mModel.layers[t.layer];
        size_t const n = chain.tensors.size();
        // Row axes of each tensor of the chain, from the side of the row transpose.
        std::vector<size_t> rows(n);
        size_t const known = chain.backward ? n - 1 : 0;
        rows[known] = t.rows;
        for (size_t step = 1; step < n; ++step)
        {
            size_t const from = chain.backward ? n - step : step - 1;
            size_t const to = chain.backward ? from - 1 : from + 1;
            LayerRecord const& layer = mModel.layers[chain.links[std::min(from, to)].layer];
            std::optional<size_t> const across
                = rowAxesAcross(mModel, layer, dimsOf(chain.tensors[from]), rows[from], dimsOf(chain.tensors[to]));
            if (!across)
            {
                return false;
            }
            rows[to] = *across;
        }
        for (size_t i = 0; i < chain.links.size(); ++i)
        {
            LayerRecord const& layer = mModel.layers[chain.links[i].layer];
            if (!operandsFollowRows(mModel, layer, chain.links[i].slot, rows[i]))
            {
                return false;
            }
        }
        // The rows as the chain's tensors hold them now, and the order they take: the transpose's output order where
        // it reads the chain, its input's where it writes it.
        std::vector<int32_t> const& chainRows = dimsOf(chain.tensors[known]);
        Axes order(t.rows);
        for (size_t j = 0; j < t.rows; ++j)
        {
            order[t.order.order[j]] = j; // the inverse, for a transpose that writes the chain
        }
        for (size_t j = 0; chain.backward && j < t.rows; ++j)
        {
            order[j] = static_cast<size_t>(t.order.order[j]);
        }
        // Each tensor's axes in their new order: new axis a holds old axis moved[a].
        std::vector<Axes> moved(n);
        for (size_t i = 0; i < n; ++i)
        {
            std::vector<int32_t> const& dims = dimsOf(chain.tensors[i]);
            Axes rowAxes;
            for (size_t a = 0; a < rows[i]; ++a)
            {
                if (!isOne(mModel, dims[a]))
                {
                    rowAxes.push_back(a);
                }
            }
            moved[i].resize(dims.size());
            for (size_t a = 0; a < dims.size(); ++a)
            {
                moved[i][a] = a;
            }
            bool listed = rowAxes.size() == t.rows;
            for (size_t j = 0; listed && j < t.rows; ++j)
            {
                listed = plan::sameExpr(mModel, dims[rowAxes[j]], chainRows[j]);
            }
            bool const atAnEnd = i == 0 || i + 1 == n;
            if (!listed && (atAnEnd || rowAxes.size() != 1))
            {
                return false; // a single axis holds every row in the chain's order, whichever order that is
            }
            for (size_t j = 0; listed && j < t.rows; ++j)
            {
                moved[i][rowAxes[j]] = rowAxes[order[j]];
            }
        }
        std::vector<std::vector<int32_t>> newDims(n);
        for (size_t i = 0; i < n; ++i)
        {
            std::vector<int32_t> const& dims = dimsOf(chain.tensors[i]);
            for (size_t a = 0; a < dims.size(); ++a)
            {
                newDims[i].push_back(dims[moved[i][a]]);
            }
        }
        // Where the transpose wrote the chain's first tensor, the chain now reads the transpose's input, as it lies.
        if (!chain.backward)
        {
            newDims[0] = dimsOf(transpose.inputs[0]);
        }
        std::vector<std::optional<nvinfer1::Dims>> reshapes(chain.links.size());
        for (size_t i = 0; i < chain.links.size(); ++i)
        {
            if (mModel.layers[chain.links[i].layer].type == LayerType::kSHUFFLE)
            {
                reshapes[i] = reshapeDimensions(mModel, newDims[i], newDims[i + 1]);
                if (!reshapes[i])
                {
                    return false;
                }
            }
        }

        // Nothing fails past here.
        for (size_t i = 0; i < chain.links.size(); ++i)
        {
            if (reshapes[i])
            {
                restateReshape(mModel.layers[chain.links[i].layer], *reshapes[i]);
            }
        }
        for (size_t i = 0; i < n; ++i)
        {
            mModel.tensors[chain.tensors[i]].dims = newDims[i];
        }
        LayerRecord& end = mModel.layers[chain.end];
        if (chain.backward)
        {
            foldIntoWriter(end, moved[0]);
            // The chain's last layer writes the transpose's output, which now holds what it wrote.
            LayerRecord& last = chain.links.empty() ? end : mModel.layers[chain.links.back().layer];
            last.outputs[0] = transpose.outputs[0];
        }
        else
        {
            foldIntoReader(end, moved[n - 1]);
            LayerRecord& first = chain.links.empty() ? end : mModel.layers[chain.links.front().layer];
            first.inputs[chain.links.empty() ? 0 : chain.links.front().slot] = transpose.inputs[0];
        }
        return true;
    }

    //! Transpose or attention `end` writing its output with its axes moved: new axis a is old axis moved[a].
    void foldIntoWriter(LayerRecord& end, Axes const& moved)
    {
        Axes newAxisOf(moved.size());
        for (size_t a = 0; a < moved.size(); ++a)
        {
            newAxisOf[moved[a]] = a;
        }
        if (end.type == network::kAttentionLayerType)
        {
            auto params = std::make_shared<network::AttentionParams>(*plan::paramsOf<network::AttentionParams>(end));
            for (size_t i = 0; i < moved.size(); ++i)
            {
                params->outputAxes.order[i] = static_cast<int32_t>(newAxisOf[params->outputAxes.order[i]]);
            }
            end.params = std::move(params);
            return;
        }
        Permutation const before = *plan::transposeOf(mModel, end);
        Permutation after = network::ShuffleParams::identityPermutation();
        for (size_t j = 0; j < moved.size(); ++j)
        {
            after.order[j] = before.order[moved[j]];
        }
        setTranspose(end, after);
    }

    //! Transpose `end` reading its input with its axes moved: new axis a is old axis moved[a].
    void foldIntoReader(LayerRecord& end, Axes const& moved)
    {
        Axes newAxisOf(moved.size());
        for (size_t a = 0; a < moved.size(); ++a)
        {
            newAxisOf[moved[a]] = a;
        }
        Permutation const before = *plan::transposeOf(mModel, end);
        Permutation after = network::ShuffleParams::identityPermutation();
        for (size_t j = 0; j < mModel.tensors[end.outputs[0]].dims.size(); ++j)
        {
            after.order[j] = static_cast<int32_t>(newAxisOf[before.order[j]]);
        }
        setTranspose(end, after);
    }

    static void setTranspose(LayerRecord& layer, Permutation const& order)
    {
        auto params = std::make_shared<network::ShuffleParams>();
        params->firstTranspose = order;
        layer.params = std::move(params);
    }

    std::vector<int32_t> const& dimsOf(int32_t tensor) const
    {
        return mModel.tensors[tensor].dims;
    }

    PlanModel& mModel;
    std::vector<std::vector<size_t>> mReaders;
    std::vector<int64_t> mProducers;
};

} // namespace

size_t foldRowTransposes(PlanModel& model)
{
    size_t folded = 0;
    // Who reads and writes what, made again only after a fold rewires tensors.
    std::optional<RowTransposeFolder> folder;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        std::optional<RowTranspose> const transpose = rowTransposeAt(model, l);
        if (!transpose)
        {
            continue;
        }
        if (!folder)
        {
            folder.emplace(model);
        }
        if (folder->fold(*transpose))
        {
            std::vector<bool> removed(model.layers.size(), false);
            removed[l] = true;
            plan::eraseLayers(model, removed);
            folder.reset();
            ++folded;
            --l;
        }
    }
    return folded;
}

} // namespace kiln::cuda
