#include "backend/cuda/passes/reshape_before_transpose.h"

#include "backend/cuda/passes/shuffle_edits.h"
#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"

#include <memory>
#include <optional>
#include <vector>

namespace kiln::cuda
{
using plan::LayerRecord;
using plan::PlanModel;

namespace
{

//! A transpose followed by a reshape that splits axis `axis` of its output into `parts` axes.
struct Swap
{
    size_t transpose;
    size_t reshape;
    nvinfer1::Permutation order; //!< the transpose's output axis i is its input's axis order.order[i]
    size_t axis;
    size_t parts;
};

//! Where reshape `to` of tensor `from` splits one axis of it into several and keeps every other extent: that axis.
std::optional<size_t> splitAxis(PlanModel const& model, int32_t from, int32_t to)
{
    std::vector<int32_t> const& in = model.tensors[from].dims;
    std::vector<int32_t> const& out = model.tensors[to].dims;
    if (in.empty() || out.size() <= in.size())
    {
        return std::nullopt;
    }
    size_t axis = 0;
    while (axis + 1 < in.size() && plan::sameExpr(model, in[axis], out[axis]))
    {
        ++axis;
    }
    // The axes after it must be the output's last ones; the reshape keeps the element count, so the axes it splits
    // into multiply to its extent.
    size_t const after = in.size() - 1 - axis;
    for (size_t j = 0; j < after; ++j)
    {
        if (!plan::sameExpr(model, in[in.size() - 1 - j], out[out.size() - 1 - j]))
        {
            return std::nullopt;
        }
    }
    return axis;
}

std::optional<Swap> swapAt(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, size_t t)
{
    LayerRecord const& transpose = model.layers[t];
    if (transpose.type != nvinfer1::LayerType::kSHUFFLE || !plainShuffle(transpose))
    {
        return std::nullopt;
    }
    std::optional<nvinfer1::Permutation> const order = plan::transposeOf(model, transpose);
    int32_t const between = transpose.outputs[0];
    std::vector<size_t> const& betweenReaders = readers[static_cast<size_t>(between)];
    if (!order || betweenReaders.size() != 1 || isObserved(model.tensors[between]))
    {
        return std::nullopt;
    }
    size_t const r = betweenReaders[0];
    LayerRecord const& reshape = model.layers[r];
    auto const* shuffle = paramsOf<network::ShuffleParams>(reshape);
    if (shuffle == nullptr || !plainShuffle(reshape) || reshape.inputs[0] != between || !keepsType(model, reshape)
        || !shuffle->reshapesOnly())
    {
        return std::nullopt;
    }
    std::optional<size_t> const axis = splitAxis(model, between, reshape.outputs[0]);
    if (!axis)
    {
        return std::nullopt;
    }
    size_t const parts = model.tensors[reshape.outputs[0]].dims.size() - model.tensors[between].dims.size() + 1;
    return Swap{t, r, *order, *axis, parts};
}

//! Rewrites x -> transpose -> y -> reshape -> z as x -> reshape -> y' -> transpose -> z, where the new reshape splits
//! the axis of x that the transpose moved to the split axis of y. False (nothing changed) where the new reshape's
//! extents cannot be stated.
bool apply(PlanModel& model, Swap const& swap)
{
    LayerRecord& transpose = model.layers[swap.transpose];
    LayerRecord& reshape = model.layers[swap.reshape];
    int32_t const x = transpose.inputs[0];
    int32_t const y = transpose.outputs[0];
    std::vector<int32_t> const xDims = model.tensors[x].dims;
    std::vector<int32_t> const& zDims = model.tensors[reshape.outputs[0]].dims;
    auto const split = static_cast<size_t>(swap.order.order[swap.axis]); // x's axis that becomes the split axis
    // x's axis i lies at axis newAxis(i) of y', where the split axis's parts take its place.
    auto const newAxis = [&](size_t i) { return i < split ? i : i == split ? split : i + swap.parts - 1; };
    std::vector<int32_t> splitDims;
    for (size_t i = 0; i < xDims.size(); ++i)
    {
        if (i != split)
        {
            splitDims.push_back(xDims[i]);
            continue;
        }
        for (size_t p = 0; p < swap.parts; ++p)
        {
            splitDims.push_back(zDims[swap.axis + p]);
        }
    }
    std::optional<nvinfer1::Dims> const dims = reshapeDimensions(model, xDims, splitDims);
    if (!dims)
    {
        return false;
    }
    // z's axis k: y's axis j (k < axis: j = k; within the parts: the split axis; after: k - parts + 1) was x's axis
    // order[j], now y''s axis newAxis(order[j]) (within the parts: the part's own).
    nvinfer1::Permutation moved = network::ShuffleParams::identityPermutation();
    for (size_t k = 0; k < zDims.size(); ++k)
    {
        if (k >= swap.axis && k < swap.axis + swap.parts)
        {
            moved.order[k] = static_cast<int32_t>(split + (k - swap.axis));
            continue;
        }
        size_t const j = k < swap.axis ? k : k - swap.parts + 1;
        moved.order[k] = static_cast<int32_t>(newAxis(static_cast<size_t>(swap.order.order[j])));
    }
    auto reshapeFirst = std::make_shared<network::ShuffleParams>();
    reshapeFirst->reshape = *dims;
    reshapeFirst->zeroIsPlaceholder = true;
    auto transposeAfter = std::make_shared<network::ShuffleParams>();
    transposeAfter->firstTranspose = moved;
    // The transpose keeps its types and formats: it reads x and writes y' as it read x and wrote y (converting, where
    // it did). The reshape read y and wrote z in their own types: so does the transpose there, its shape input, if any,
    // read no more.
    transpose.params = std::move(reshapeFirst);
    reshape.params = std::move(transposeAfter);
    dropShapeInput(reshape);
    model.tensors[y].dims = std::move(splitDims);
    model.tensors[y].name += ", split before " + transpose.name;
    return true;
}

} // namespace

size_t moveSplitsBeforeTransposes(PlanModel& model)
{
    size_t swapped = 0;
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        // Each swap changes its own two layers' parameters and the tensor between them alone: the readers stay.
        if (std::optional<Swap> const swap = swapAt(model, readers, l); swap && apply(model, *swap))
        {
            ++swapped;
        }
    }
    return swapped;
}

} // namespace kiln::cuda
