#include "plan/passes/channel_permutation.h"

#include "core/checked_size.h"
#include "network/layers/constant.h"
#include "network/layers/gather.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::plan
{
namespace
{

using nvinfer1::LayerType;

//! The most elements a chain is followed through (one batch item's, where no shuffle of it moves the batch axis): a
//! channel shuffle's tensors have far fewer, and the build should not spend long on a chain that is something else.
constexpr int64_t kMostElementsFollowed = int64_t{1} << 21;
//! The most shuffles a chain has (ShuffleNet's has three).
constexpr size_t kLongestChain = 4;

//! The number of elements of extents `dims` where it is at most kMostElementsFollowed: a chain over more is not
//! followed (and a hostile file's extents neither overflow the count nor make the build follow them).
std::optional<int64_t> followedVolume(std::vector<int64_t> const& dims)
{
    std::optional<int64_t> const elements = checkedElementCount(dims);
    return elements && *elements <= kMostElementsFollowed ? elements : std::nullopt;
}

//! The row-major strides of a tensor of extents `dims`.
std::vector<int64_t> rowMajorStrides(std::vector<int64_t> const& dims)
{
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t axis = dims.size(); axis-- > 1;)
    {
        strides[axis - 1] = strides[axis] * dims[axis];
    }
    return strides;
}

//! What the pass knows of extents: the value of each expression node where no run changes it
//! (valuesNoRunChanges: constants, and extents an engine built for one shape has at every run).
using KnownValues = std::vector<std::optional<int64_t>>;

//! One batch item's extents of tensor `t`: 1, then its extents past axis 0 where each is known while building and its
//! axis 0 is `items` (an expression node: the same number of items as another tensor has, whatever it is at run time).
std::optional<std::vector<int64_t>> itemDims(PlanModel const& model, KnownValues const& known, int32_t t, int32_t items)
{
    std::vector<int32_t> const& dims = model.tensors[t].dims;
    auto const knownAt = [&](int32_t node) { return known[static_cast<size_t>(node)]; };
    if (dims.empty() || !equalEveryRun(model, known, dims[0], items))
    {
        return std::nullopt;
    }
    std::vector<int64_t> item{1};
    for (size_t axis = 1; axis < dims.size(); ++axis)
    {
        std::optional<int64_t> const extent = knownAt(dims[axis]);
        if (!extent)
        {
            return std::nullopt;
        }
        item.push_back(*extent);
    }
    return item;
}

//! One shuffle with one batch item's extents: its first transpose, the row-major reshape to what its second transpose
//! reads, and that transpose.
struct ShuffleStep
{
    std::vector<int64_t> in;
    std::vector<int64_t> out;
    nvinfer1::Permutation first;
    nvinfer1::Permutation second;
    nvinfer1::DataType type; //!< what it reads and writes
};

//! Layer `layer` as a step of a chain over tensors of `items` batch items: a shuffle of one output that leaves axis 0
//! where it is (so that it moves each item's elements within the item), whose other extents are build-time constants,
//! reading its input's own type and writing the same (its output may be stored in another: a network output), run
//! unconditionally.
std::optional<ShuffleStep> stepOf(
    PlanModel const& model, KnownValues const& known, LayerRecord const& layer, int32_t items)
{
    auto const* shuffle = paramsOf<network::ShuffleParams>(layer);
    if (shuffle == nullptr || layer.outputs.size() != 1 || layer.inputs.empty() || layer.inputs[0] < 0
        || layer.epilogue.any() || !layer.guards.empty() || shuffle->firstTranspose.order[0] != 0
        || shuffle->secondTranspose.order[0] != 0)
    {
        return std::nullopt;
    }
    int32_t const in = layer.inputs[0];
    int32_t const out = layer.outputs[0];
    nvinfer1::DataType const type = model.tensors[in].type;
    if (slotType(model, layer, 0) != type || slotType(model, layer, layer.inputs.size()) != type)
    {
        return std::nullopt;
    }
    std::optional<std::vector<int64_t>> inDims = itemDims(model, known, in, items);
    std::optional<std::vector<int64_t>> outDims = itemDims(model, known, out, items);
    // Inference has checked that both transposes are permutations of their tensors' axes.
    if (!inDims || !outDims || !followedVolume(*inDims) || followedVolume(*inDims) != followedVolume(*outDims))
    {
        return std::nullopt;
    }
    return ShuffleStep{
        std::move(*inDims), std::move(*outDims), shuffle->firstTranspose, shuffle->secondTranspose, type};
}

//! Finds, for each output element of a step, the input element it is (both as row-major indices).
class StepSource
{
public:
    explicit StepSource(ShuffleStep const& step)
        : mOut(step.out)
    {
        // Output axis i is axis second[i] of the reshaped tensor, axis i of the transposed tensor is input axis
        // first[i].
        std::vector<int64_t> reshaped(step.out.size());
        for (size_t i = 0; i < step.out.size(); ++i)
        {
            reshaped[static_cast<size_t>(step.second.order[i])] = step.out[i];
        }
        std::vector<int64_t> const reshapedStrides = rowMajorStrides(reshaped);
        for (size_t i = 0; i < step.out.size(); ++i)
        {
            mOutToReshaped.push_back(reshapedStrides[static_cast<size_t>(step.second.order[i])]);
        }
        std::vector<int64_t> const inStrides = rowMajorStrides(step.in);
        for (size_t i = 0; i < step.in.size(); ++i)
        {
            mTransposed.push_back(step.in[static_cast<size_t>(step.first.order[i])]);
            mTransposedToIn.push_back(inStrides[static_cast<size_t>(step.first.order[i])]);
        }
    }

    int64_t operator()(int64_t o) const
    {
        int64_t reshapedIndex = 0;
        for (size_t axis = mOut.size(); axis-- > 0;)
        {
            reshapedIndex += o % mOut[axis] * mOutToReshaped[axis];
            o /= mOut[axis];
        }
        int64_t source = 0;
        for (size_t axis = mTransposed.size(); axis-- > 0;)
        {
            source += reshapedIndex % mTransposed[axis] * mTransposedToIn[axis];
            reshapedIndex /= mTransposed[axis];
        }
        return source;
    }

private:
    std::vector<int64_t> mOut;
    std::vector<int64_t> mOutToReshaped;
    std::vector<int64_t> mTransposed;
    std::vector<int64_t> mTransposedToIn;
};

//! The permutation of axis 1 that `steps` make of one batch item of extents `dims` (4-D, as their output is): perm[c]
//! is the input channel of output channel c; none where they move elements otherwise, or leave every one in place.
std::optional<std::vector<int32_t>> axisOnePermutation(
    std::vector<ShuffleStep> const& steps, std::vector<int64_t> const& dims)
{
    std::optional<int64_t> const elements = followedVolume(dims);
    if (!elements || *elements == 0)
    {
        return std::nullopt;
    }
    std::vector<StepSource> sources(steps.begin(), steps.end());
    auto const sourceOf = [&](int64_t o) {
        for (size_t s = sources.size(); s-- > 0;)
        {
            o = sources[s](o);
        }
        return o;
    };
    int64_t const channels = dims[1];
    int64_t const inner = dims[2] * dims[3];
    // Each channel's first element names the permutation; where it is the identity nothing is gathered whatever the
    // chain does (a permute of ConvNeXt's and its inverse), so the elements need not all be followed.
    std::vector<int32_t> permutation;
    for (int64_t c = 0; c < channels; ++c)
    {
        int64_t const source = sourceOf(c * inner);
        if (source % inner != 0)
        {
            return std::nullopt;
        }
        permutation.push_back(static_cast<int32_t>(source / inner));
    }
    bool identity = true;
    for (size_t c = 0; c < permutation.size(); ++c)
    {
        identity = identity && permutation[c] == static_cast<int32_t>(c);
    }
    if (identity)
    {
        return std::nullopt;
    }
    for (int64_t o = 0; o < *elements; ++o)
    {
        if (sourceOf(o) != permutation[static_cast<size_t>(o / inner)] * inner + o % inner)
        {
            return std::nullopt;
        }
    }
    return permutation;
}

//! A chain of shuffles (layer indices, in order) and the permutation of axis 1 it makes.
struct Chain
{
    std::vector<size_t> layers;
    std::vector<int32_t> permutation;
    nvinfer1::DataType type; //!< what its shuffles read and write
};

//! The chain that starts at layer `l`, where one does.
std::optional<Chain> chainFrom(
    PlanModel const& model, KnownValues const& known, std::vector<std::vector<size_t>> const& readers, size_t l)
{
    LayerRecord const& start = model.layers[l];
    int32_t const x = start.type == LayerType::kSHUFFLE && !start.inputs.empty() ? start.inputs[0] : -1;
    if (x < 0 || model.tensors[x].dims.size() != 4)
    {
        return std::nullopt;
    }
    int32_t const items = model.tensors[x].dims[0];
    std::optional<std::vector<int64_t>> const dims = itemDims(model, known, x, items);
    if (!dims)
    {
        return std::nullopt;
    }
    Chain chain;
    std::vector<ShuffleStep> steps;
    for (size_t at = l; chain.layers.size() < kLongestChain;)
    {
        std::optional<ShuffleStep> step = stepOf(model, known, model.layers[at], items);
        if (!step)
        {
            return std::nullopt;
        }
        bool const shapedAsInput = step->out == *dims;
        chain.type = step->type;
        steps.push_back(std::move(*step));
        chain.layers.push_back(at);
        if (shapedAsInput)
        {
            if (std::optional<std::vector<int32_t>> permutation = axisOnePermutation(steps, *dims))
            {
                chain.permutation = std::move(*permutation);
                return chain;
            }
        }
        // The chain goes on through tensors stored in its type.
        int32_t const out = model.layers[at].outputs[0];
        std::optional<size_t> const next = soleReader(model, readers, at);
        if (!next || model.tensors[out].type != chain.type || model.layers[*next].inputs.empty()
            || model.layers[*next].inputs[0] != out)
        {
            return std::nullopt;
        }
        at = *next;
    }
    return std::nullopt;
}

//! The channels of tensor `y` (4-D) that slice `layer` reads, in the order it writes them, where it slices only axis 1
//! and stays inside it: start and stride set as parameters (a size tensor is fine: the output's extents are the
//! size), reading `y`'s own type and writing the same.
std::optional<std::vector<int32_t>> slicedChannels(
    PlanModel const& model, KnownValues const& known, LayerRecord const& layer, int32_t y)
{
    auto const* slice = paramsOf<network::SliceParams>(layer);
    if (slice == nullptr || layer.inputs.empty() || layer.inputs[0] != y || layer.outputs.size() != 1
        || layer.epilogue.any() || !layer.guards.empty() || slice->start.nbDims != 4 || slice->stride.nbDims != 4)
    {
        return std::nullopt;
    }
    int32_t const out = layer.outputs[0];
    nvinfer1::DataType const type = model.tensors[y].type;
    if (slotType(model, layer, 0) != type || slotType(model, layer, layer.inputs.size()) != type)
    {
        return std::nullopt;
    }
    for (size_t slot = 1; slot < layer.inputs.size(); ++slot)
    {
        if (slot != 2 && layer.inputs[slot] >= 0)
        {
            return std::nullopt; // start, stride or fill given at run time
        }
    }
    std::vector<int32_t> const& in = model.tensors[y].dims;
    std::vector<int32_t> const& sliced = model.tensors[out].dims;
    auto const knownAt = [&](int32_t node) { return known[static_cast<size_t>(node)]; };
    for (size_t axis : {0, 2, 3})
    {
        bool const whole = equalEveryRun(model, known, in[axis], sliced[axis]);
        if (!whole || slice->start.d[axis] != 0 || slice->stride.d[axis] != 1)
        {
            return std::nullopt;
        }
    }
    std::optional<int64_t> const channels = knownAt(in[1]);
    std::optional<int64_t> const count = knownAt(sliced[1]);
    if (!channels || !count)
    {
        return std::nullopt;
    }
    std::vector<int32_t> read;
    for (int64_t j = 0; j < *count; ++j)
    {
        int64_t const c = slice->start.d[1] + j * slice->stride.d[1];
        if (c < 0 || c >= *channels)
        {
            return std::nullopt; // the slice's own kernel samples outside the axis, or reports it
        }
        read.push_back(static_cast<int32_t>(c));
    }
    return read;
}

//! Rewrites a plan's chains as gathers (see gatherChannelPermutations).
class ChainRewriter
{
public:
    explicit ChainRewriter(PlanModel& model)
        : mModel(model)
        , mEdit(model)
    {
    }

    size_t run()
    {
        size_t gathered = 0;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            std::optional<Chain> const chain = mEdit.removed[l] ? std::nullopt
                                                                : chainFrom(mModel, mEdit.known, mEdit.readers, l);
            if (chain)
            {
                rewrite(*chain);
                ++gathered;
            }
        }
        mEdit.apply(mModel);
        return gathered;
    }

private:
    //! The chain's layers go; each slice of its output along the channels becomes a gather of the chain's input by the
    //! channels it reads, and the chain's output a gather where something else reads it.
    void rewrite(Chain const& chain)
    {
        LayerRecord const& first = mModel.layers[chain.layers.front()];
        int32_t const x = first.inputs[0];
        int32_t const y = mModel.layers[chain.layers.back()].outputs[0];
        std::string name = first.name;
        for (size_t l = 1; l < chain.layers.size(); ++l)
        {
            name += " + " + mModel.layers[chain.layers[l]].name;
        }
        std::optional<nvinfer1::DataType> const precision = first.precision;
        for (size_t member : chain.layers)
        {
            mEdit.remove(mModel, member);
        }
        std::vector<size_t> otherReaders;
        for (size_t r : std::vector<size_t>(mEdit.readers[y]))
        {
            // A slice of an output stored in another type (a network output) reads it converted back: it stays.
            std::optional<std::vector<int32_t>> const channels = mModel.tensors[y].type == chain.type
                ? slicedChannels(mModel, mEdit.known, mModel.layers[r], y)
                : std::nullopt;
            if (!channels)
            {
                otherReaders.push_back(r);
                continue;
            }
            std::vector<int32_t> indices;
            for (int32_t c : *channels)
            {
                indices.push_back(chain.permutation[static_cast<size_t>(c)]);
            }
            LayerRecord const& slice = mModel.layers[r];
            std::string const sliceName = name + " + " + slice.name;
            int32_t const out = slice.outputs[0];
            std::optional<nvinfer1::DataType> const slicePrecision = slice.precision;
            mEdit.remove(mModel, r);
            mEdit.after[r] = gatherOf(sliceName, x, indices, out, slicePrecision, chain.type);
        }
        mEdit.readers[y] = otherReaders;
        if (!otherReaders.empty() || isObserved(mModel.tensors[y]))
        {
            mEdit.after[chain.layers.back()] = gatherOf(name, x, chain.permutation, y, precision, chain.type);
        }
    }

    //! A constant holding `indices` (INT32), and the gather of axis 1 of `x` by them into `output`, named `name`,
    //! moving `type` (the output stored in its own, converted as it is written).
    std::vector<LayerRecord> gatherOf(std::string const& name, int32_t x, std::vector<int32_t> const& indices,
        int32_t output, std::optional<nvinfer1::DataType> precision, nvinfer1::DataType type)
    {
        auto const count = static_cast<int64_t>(indices.size());
        auto values = std::make_shared<network::ConstantParams>();
        values->dimensions = nvinfer1::Dims{1, {count}};
        values->weights = network::WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kINT32, indices.data(), count});
        LayerRecord constant;
        constant.type = LayerType::kCONSTANT;
        constant.name = name + ": channels";
        constant.params = std::move(values);
        TensorRecord tensor;
        tensor.name = constant.name;
        tensor.type = nvinfer1::DataType::kINT32;
        tensor.dims = {constantNode(mModel, count)};
        tensor.maxBytes = count * static_cast<int64_t>(sizeof(int32_t));
        mModel.tensors.push_back(std::move(tensor));
        constant.outputs = {static_cast<int32_t>(mModel.tensors.size() - 1)};

        auto params = std::make_shared<network::GatherParams>();
        params->gatherAxis = 1;
        LayerRecord gather;
        gather.type = LayerType::kGATHER;
        gather.name = name;
        gather.params = std::move(params);
        gather.precision = precision;
        gather.inputs = {x, constant.outputs[0]};
        gather.outputs = {output};
        setIoTypes(mModel, gather, {type, nvinfer1::DataType::kINT32, type});
        return {std::move(constant), std::move(gather)};
    }

    PlanModel& mModel;
    LayerRewrite mEdit;
};

} // namespace

size_t gatherChannelPermutations(PlanModel& model)
{
    return ChainRewriter(model).run();
}

} // namespace kiln::plan
