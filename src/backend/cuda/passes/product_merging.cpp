#include "backend/cuda/passes/product_merging.h"

#include "core/data_type.h"
#include "network/layers/constant.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cuda
{
using plan::Epilogue;
using plan::LayerRecord;
using plan::PlanModel;
using plan::TensorRecord;

namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::MatrixOperation;

//! A product that can join a group, and the constant layer that makes its weights.
struct Member
{
    size_t layer{0};
    size_t weightsLayer{0};
};

//! The bytes of `weights`, one after another, as one buffer of their type (they all have it).
network::WeightsBuffer stacked(std::vector<network::WeightsBuffer const*> const& weights)
{
    DataType const type = weights.front()->type();
    std::vector<uint8_t> bytes;
    int64_t count = 0;
    for (network::WeightsBuffer const* w : weights)
    {
        auto const* begin = static_cast<uint8_t const*>(w->data());
        bytes.insert(bytes.end(), begin, begin + static_cast<size_t>(w->count()) * elementSize(type));
        count += w->count();
    }
    return network::WeightsBuffer(nvinfer1::Weights{type, bytes.data(), count});
}

//! Dims holding `values`.
nvinfer1::Dims dimsOf(std::vector<int64_t> const& values)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(values.size());
    std::copy(values.begin(), values.end(), dims.d);
    return dims;
}

class Merger
{
public:
    explicit Merger(PlanModel& model)
        : mModel(model)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
    {
    }

    size_t run()
    {
        std::vector<std::vector<Member>> const groups = findGroups();
        if (groups.empty())
        {
            return 0;
        }
        // Where each group runs (its first member's place), which layers it replaces, and which weight constants
        // nothing reads once it does.
        std::vector<int64_t> groupAt(mModel.layers.size(), -1);
        std::vector<bool> gone(mModel.layers.size(), false);
        std::vector<size_t> readersLeft(mModel.tensors.size(), 0);
        for (size_t t = 0; t < mModel.tensors.size(); ++t)
        {
            readersLeft[t] = mReaders[t].size();
        }
        size_t merged = 0;
        for (size_t g = 0; g < groups.size(); ++g)
        {
            groupAt[groups[g].front().layer] = static_cast<int64_t>(g);
            for (Member const& member : groups[g])
            {
                gone[member.layer] = true;
                --readersLeft[mModel.layers[member.layer].inputs[1]];
            }
            merged += groups[g].size() - 1;
        }
        for (std::vector<Member> const& group : groups)
        {
            for (Member const& member : group)
            {
                int32_t const weights = mModel.layers[member.weightsLayer].outputs[0];
                gone[member.weightsLayer] = readersLeft[weights] == 0 && !isObserved(mModel.tensors[weights]);
            }
        }
        // Made before any layer moves: they read the members' records and their weights.
        std::vector<std::vector<LayerRecord>> replacements;
        for (std::vector<Member> const& group : groups)
        {
            replacements.push_back(merge(group));
        }
        std::vector<LayerRecord> layers;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (groupAt[l] >= 0)
            {
                std::vector<LayerRecord>& replacement = replacements[static_cast<size_t>(groupAt[l])];
                layers.insert(layers.end(), std::make_move_iterator(replacement.begin()),
                    std::make_move_iterator(replacement.end()));
            }
            else if (!gone[l])
            {
                layers.push_back(std::move(mModel.layers[l]));
            }
        }
        mModel.layers = std::move(layers);
        return merged;
    }

private:
    //! Layer `l` as a member of a group sharing first input `x`, where it can be one.
    std::optional<Member> memberOf(size_t l, int32_t x) const
    {
        LayerRecord const& product = mModel.layers[l];
        auto const* params = paramsOf<network::MatrixMultiplyParams>(product);
        bool const shape = product.inputs.size() == 2 && product.inputs[0] == x && product.inputs[1] >= 0
            && product.outputs.size() == 1 && product.guards.empty() && linearThroughout(mModel, product);
        if (params == nullptr || !shape || params->op0 != MatrixOperation::kNONE
            || (params->op1 != MatrixOperation::kNONE && params->op1 != MatrixOperation::kTRANSPOSE)
            || product.epilogue.addsResidual)
        {
            return std::nullopt;
        }
        TensorRecord const& out = mModel.tensors[product.outputs[0]];
        // Written where the product computes it, in its own type: a view of the merged output can be it.
        if (isObserved(out) || out.values || slotType(mModel, product, 2) != out.type)
        {
            return std::nullopt;
        }
        int32_t const w = product.inputs[1];
        int64_t const producer = mProducers[static_cast<size_t>(w)];
        if (producer < 0 || fixedConstant(mModel.layers[static_cast<size_t>(producer)]) == nullptr
            || !outputsItsWeights(mModel, mModel.layers[static_cast<size_t>(producer)])
            || slotType(mModel, product, 1) != mModel.tensors[w].type)
        {
            return std::nullopt;
        }
        // The weights are one matrix: every batch axis of extent 1, as many axes as the input and the output.
        std::optional<std::vector<int64_t>> const weights = constantDims(mModel, w);
        size_t const rank = mModel.tensors[x].dims.size();
        // The merged product has one axis more.
        bool const stackable = rank >= 2 && rank < static_cast<size_t>(nvinfer1::Dims::MAX_DIMS);
        if (!weights || weights->size() != rank || out.dims.size() != rank || !stackable)
        {
            return std::nullopt;
        }
        for (size_t axis = 0; axis + 2 < rank; ++axis)
        {
            if ((*weights)[axis] != 1)
            {
                return std::nullopt;
            }
        }
        return Member{l, static_cast<size_t>(producer)};
    }

    //! Whether members `a` and `b` compute alike, so that one product computes both: the same operations, weights'
    //! shape and type, precision, I/O types, activation and bias type.
    bool alike(Member const& a, Member const& b) const
    {
        LayerRecord const& x = mModel.layers[a.layer];
        LayerRecord const& y = mModel.layers[b.layer];
        auto const* px = paramsOf<network::MatrixMultiplyParams>(x);
        auto const* py = paramsOf<network::MatrixMultiplyParams>(y);
        Epilogue const& ex = x.epilogue;
        Epilogue const& ey = y.epilogue;
        bool const sameActivation = ex.activates == ey.activates
            && (!ex.activates || (ex.activation == ey.activation && ex.alpha == ey.alpha && ex.beta == ey.beta));
        bool const sameBiasType = ex.bias.empty() || ey.bias.empty() || ex.bias.type() == ey.bias.type();
        bool sameTypes = true;
        for (size_t slot = 0; slot < 3; ++slot)
        {
            sameTypes = sameTypes && slotType(mModel, x, slot) == slotType(mModel, y, slot);
        }
        return px->op1 == py->op1 && constantDims(mModel, x.inputs[1]) == constantDims(mModel, y.inputs[1])
            && mModel.tensors[x.inputs[1]].type == mModel.tensors[y.inputs[1]].type && x.precision == y.precision
            && sameTypes && sameShape(mModel, x.outputs[0], y.outputs[0]) && sameActivation && sameBiasType;
    }

    //! Groups of two or more members that read one tensor, each in the order its members ran.
    std::vector<std::vector<Member>> findGroups() const
    {
        std::vector<std::vector<Member>> groups;
        for (size_t t = 0; t < mModel.tensors.size(); ++t)
        {
            std::vector<Member> candidates;
            for (size_t reader : mReaders[t])
            {
                if (std::optional<Member> const member = memberOf(reader, static_cast<int32_t>(t)))
                {
                    candidates.push_back(*member);
                }
            }
            while (candidates.size() >= 2)
            {
                std::vector<Member> group;
                std::vector<Member> others;
                for (Member const& candidate : candidates)
                {
                    (alike(candidates.front(), candidate) ? group : others).push_back(candidate);
                }
                if (group.size() >= 2)
                {
                    groups.push_back(std::move(group));
                }
                candidates = std::move(others);
            }
        }
        return groups;
    }

    //! A tensor named `name` of tensor `like`'s type, whose extents are `leading` (node `leadingNode`) and then
    //! those of `like`.
    int32_t addTensorLike(std::string name, int32_t like, int64_t leading, int32_t leadingNode)
    {
        TensorRecord const& pattern = mModel.tensors[static_cast<size_t>(like)];
        TensorRecord tensor;
        tensor.name = std::move(name);
        tensor.type = pattern.type;
        tensor.dims.push_back(leadingNode);
        tensor.dims.insert(tensor.dims.end(), pattern.dims.begin(), pattern.dims.end());
        tensor.maxBytes = leading * pattern.maxBytes;
        mModel.tensors.push_back(std::move(tensor));
        return static_cast<int32_t>(mModel.tensors.size() - 1);
    }

    //! The fused bias of the merged product: each member's row, zeros where it has none; empty where none has one.
    static network::WeightsBuffer biasRows(std::vector<LayerRecord const*> const& products)
    {
        network::WeightsBuffer const* some = nullptr;
        for (LayerRecord const* product : products)
        {
            some = product->epilogue.bias.empty() ? some : &product->epilogue.bias;
        }
        if (some == nullptr)
        {
            return {};
        }
        std::vector<uint8_t> const zeroBytes(static_cast<size_t>(some->count()) * elementSize(some->type()), 0);
        network::WeightsBuffer const zeros(nvinfer1::Weights{some->type(), zeroBytes.data(), some->count()});
        std::vector<network::WeightsBuffer const*> rows;
        for (LayerRecord const* product : products)
        {
            rows.push_back(product->epilogue.bias.empty() ? &zeros : &product->epilogue.bias);
        }
        return stacked(rows);
    }

    //! The layers that replace `group`'s members (see mergeProductsOfOneInput).
    std::vector<LayerRecord> merge(std::vector<Member> const& group)
    {
        std::vector<LayerRecord const*> products;
        std::vector<network::WeightsBuffer const*> weights;
        std::string name;
        for (Member const& member : group)
        {
            products.push_back(&mModel.layers[member.layer]);
            weights.push_back(&fixedConstant(mModel.layers[member.weightsLayer])->weights);
            name += (name.empty() ? "" : " + ") + mModel.layers[member.layer].name;
        }
        LayerRecord const& first = *products.front();
        int32_t const x = first.inputs[0];
        int32_t const w = first.inputs[1];
        int32_t const out = first.outputs[0];
        size_t const rank = mModel.tensors[x].dims.size();
        auto const members = static_cast<int64_t>(group.size());
        int32_t const one = constantNode(mModel, 1);
        int32_t const count = constantNode(mModel, members);
        // The weights, stacked along a new first axis.
        auto stack = std::make_shared<network::ConstantParams>();
        std::vector<int64_t> weightExtents{members};
        std::vector<int64_t> const matrix = *constantDims(mModel, w);
        weightExtents.insert(weightExtents.end(), matrix.begin(), matrix.end());
        stack->dimensions = dimsOf(weightExtents);
        stack->weights = stacked(weights);
        LayerRecord constant;
        constant.type = LayerType::kCONSTANT;
        constant.name = name + ": stacked weights";
        constant.params = std::move(stack);
        constant.outputs = {addTensorLike(constant.name, w, members, count)};

        // The shared input as a stack of one: [x's extents..., 1], its last axis moved to the front.
        std::vector<int64_t> keepAndAppendOne(rank, 0);
        keepAndAppendOne.push_back(1);
        auto lift = std::make_shared<network::ShuffleParams>();
        lift->reshape = dimsOf(keepAndAppendOne);
        lift->secondTranspose.order[0] = static_cast<int32_t>(rank);
        for (size_t axis = 1; axis <= rank; ++axis)
        {
            lift->secondTranspose.order[axis] = static_cast<int32_t>(axis - 1);
        }
        LayerRecord input;
        input.type = LayerType::kSHUFFLE;
        input.name = name + ": input";
        input.params = std::move(lift);
        input.precision = first.precision;
        input.inputs = {x};
        input.outputs = {addTensorLike(input.name, x, 1, one)};

        LayerRecord product;
        product.type = LayerType::kMATRIX_MULTIPLY;
        product.name = name;
        product.params = first.params;
        product.precision = first.precision;
        product.epilogue = first.epilogue;
        product.epilogue.bias = biasRows(products);
        product.inputs = {input.outputs[0], constant.outputs[0]};
        product.outputs = {addTensorLike(name + ": output", out, members, count)};
        setIoTypes(
            mModel, product, {slotType(mModel, first, 0), slotType(mModel, first, 1), slotType(mModel, first, 2)});
        int32_t const merged = product.outputs[0];
        std::vector<LayerRecord> layers;
        layers.push_back(std::move(constant));
        layers.push_back(std::move(input));
        layers.push_back(std::move(product));

        // Each member's block, and its output shape: [1, extents...] to [extents..., 1], then the last axis dropped.
        for (size_t m = 0; m < group.size(); ++m)
        {
            LayerRecord const& member = *products[m];
            int32_t const memberOut = member.outputs[0];
            std::vector<int64_t> start(rank + 1, 0);
            start[0] = static_cast<int64_t>(m);
            std::vector<int64_t> size{1};
            for (size_t axis = 0; axis < rank; ++axis)
            {
                size.push_back(constantExtent(mModel, memberOut, axis).value_or(-1)); // the output's shape rules
            }
            auto slice = std::make_shared<network::SliceParams>();
            slice->start = dimsOf(start);
            slice->size = dimsOf(size);
            slice->stride = dimsOf(std::vector<int64_t>(rank + 1, 1));
            LayerRecord block;
            block.type = LayerType::kSLICE;
            block.name = member.name + ": its block";
            block.params = std::move(slice);
            block.precision = member.precision;
            block.inputs = {merged};
            block.outputs = {addTensorLike(block.name, memberOut, 1, one)};

            auto drop = std::make_shared<network::ShuffleParams>();
            for (size_t axis = 0; axis <= rank; ++axis)
            {
                drop->firstTranspose.order[axis] = static_cast<int32_t>((axis + 1) % (rank + 1));
            }
            drop->reshape = dimsOf(std::vector<int64_t>(rank, 0));
            LayerRecord reshape;
            reshape.type = LayerType::kSHUFFLE;
            reshape.name = member.name + ": its shape";
            reshape.params = std::move(drop);
            reshape.precision = member.precision;
            reshape.inputs = block.outputs;
            reshape.outputs = {memberOut};
            layers.push_back(std::move(block));
            layers.push_back(std::move(reshape));
        }
        return layers;
    }

    PlanModel& mModel;
    std::vector<std::vector<size_t>> const mReaders;
    std::vector<int64_t> const mProducers;
};

} // namespace

size_t mergeProductsOfOneInput(PlanModel& model)
{
    return Merger(model).run();
}

} // namespace kiln::cuda
