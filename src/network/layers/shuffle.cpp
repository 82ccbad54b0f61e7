#include "network/layers/shuffle.h"

#include "core/data_type.h"
#include "network/layers/layer_utils.h"

#include <algorithm>
#include <iterator>

namespace kiln::network
{
namespace
{

//! Applies the first `dims.size()` entries of a permutation: out[i] = dims[order[i]].
bool permute(InferenceContext& ctx, std::vector<Dim>& dims, nvinfer1::Permutation const& permutation, char const* which)
{
    int32_t const rank = static_cast<int32_t>(dims.size());
    std::vector<bool> used(rank, false);
    std::vector<Dim> result;
    for (int32_t i = 0; i < rank; ++i)
    {
        int32_t const from = permutation.order[i];
        if (from < 0 || from >= rank || used[from])
        {
            return ctx.fail(std::string("the ") + which + " transpose is not a permutation of the "
                + std::to_string(rank) + " dimensions it applies to");
        }
        used[from] = true;
        result.push_back(dims[from]);
    }
    dims = std::move(result);
    return true;
}

//! Known values (row-major) in the order a transpose of a tensor of `dims` leaves them: out[j] = in[j permuted back].
//! Values of a tensor with extents known only at run time are forgotten (rank <= 1 needs no reordering).
void transposeValues(std::optional<std::vector<nvinfer1::IDimensionExpr const*>>& values, std::vector<Dim> const& dims,
    nvinfer1::Permutation const& permutation)
{
    std::optional<std::vector<int64_t>> const extents = constantExtents(dims);
    if (!values || dims.size() <= 1)
    {
        return;
    }
    if (!extents)
    {
        values.reset();
        return;
    }
    std::vector<int64_t> permuted;
    for (size_t i = 0; i < extents->size(); ++i)
    {
        int32_t const from = permutation.order[i];
        if (from < 0 || from >= static_cast<int32_t>(extents->size()))
        {
            values.reset(); // permute() reports the bad permutation
            return;
        }
        permuted.push_back((*extents)[static_cast<size_t>(from)]);
    }
    values = gatherValues(*values, permuted, [&](std::vector<int64_t> const& at) {
        std::vector<int64_t> source(at.size());
        for (size_t i = 0; i < at.size(); ++i)
        {
            source[static_cast<size_t>(permutation.order[i])] = at[i];
        }
        int64_t flat = 0;
        for (size_t axis = 0; axis < source.size(); ++axis)
        {
            flat = flat * (*extents)[axis] + source[axis];
        }
        return std::optional<int64_t>{flat};
    });
}

// Values known only at run time (a shape-tensor input's) may still be 0 or -1 then: their extents are
// written as expressions that choose, with 0/1 flags, what a constant 0 or -1 would have meant.
struct RunTimeSlot
{
    int32_t index;
    Dim isMinusOne;
    Dim resolved;
};

//! A reshape's extents as they are resolved against the input's.
struct Reshape
{
    std::vector<Dim> extents;
    //! The product of the extents resolved so far (those of run-time slots as if they were not -1).
    Dim known;
    //! The slot of the constant -1, or -1.
    int32_t inferred{-1};
    std::vector<RunTimeSlot> runTimeSlots;
};

//! The extents a reshape asks for: the shape input's values, else the static reshape dimensions; none when the
//! shuffle does not reshape.
bool requestedExtents(
    InferenceContext& ctx, std::optional<nvinfer1::Dims> const& reshape, std::optional<std::vector<Dim>>& requested)
{
    if (ctx.hasInput(1))
    {
        TensorFacts const& shape = ctx.input(1);
        if (shape.dims.nbDims != 1 || !shape.values || !isIndexType(shape.type))
        {
            return ctx.fail("the reshape dimensions (input 1) must be a 1-D INT32 or INT64 shape tensor whose values "
                            "are known while shapes are inferred (computed from shapes and constants)");
        }
        requested.emplace();
        for (auto const* value : *shape.values)
        {
            requested->push_back(Dim(ctx.builder(), value));
        }
    }
    else if (reshape)
    {
        requested.emplace();
        for (int32_t i = 0; i < reshape->nbDims; ++i)
        {
            requested->push_back(ctx.constant(reshape->d[i]));
        }
    }
    return true;
}

//! Copies the input's extents for 0s, finds the -1 and multiplies the rest into `r.known`.
bool resolveSlots(
    InferenceContext& ctx, std::vector<Dim> const& dims, bool zeroIsPlaceholder, Dim const& one, Reshape& r)
{
    for (int32_t i = 0; i < static_cast<int32_t>(r.extents.size()); ++i)
    {
        Dim const& value = r.extents[i];
        if (!value.isConstant())
        {
            Dim resolved = value;
            if (zeroIsPlaceholder && i < static_cast<int32_t>(dims.size()))
            {
                Dim const isZero = value.equal(ctx.constant(0));
                resolved = isZero * dims[i] + (one - isZero) * value;
            }
            Dim const isMinusOne = value.equal(ctx.constant(-1));
            r.known = r.known * (isMinusOne + (one - isMinusOne) * resolved);
            r.runTimeSlots.push_back({i, isMinusOne, resolved});
            continue;
        }
        if (value.isConstant() && value.constant() == 0 && zeroIsPlaceholder)
        {
            if (i >= static_cast<int32_t>(dims.size()))
            {
                return ctx.fail("reshape dimension " + std::to_string(i)
                    + " is 0 (copy the input extent) but the input has no such dimension");
            }
            r.extents[i] = dims[i];
        }
        else if (value.isConstant() && value.constant() == -1)
        {
            if (r.inferred >= 0)
            {
                return ctx.fail("the reshape dimensions hold more than one -1");
            }
            r.inferred = i;
            continue;
        }
        else if (value.isConstant() && value.constant() < 0)
        {
            return ctx.fail("reshape dimension " + std::to_string(i) + " is " + std::to_string(value.constant()));
        }
        r.known = r.known * r.extents[i];
    }
    return true;
}

//! Replaces `dims` with the `requested` extents, resolved against them.
bool reshapeDims(
    InferenceContext& ctx, std::vector<Dim>& dims, std::vector<Dim> const& requested, bool zeroIsPlaceholder)
{
    Dim volume = ctx.constant(1);
    for (Dim const& d : dims)
    {
        volume = volume * d;
    }
    Reshape r;
    r.extents = requested;
    r.known = ctx.constant(1);
    Dim const one = ctx.constant(1);
    if (!resolveSlots(ctx, dims, zeroIsPlaceholder, one, r))
    {
        return false;
    }
    if (r.inferred >= 0)
    {
        if (r.known.isConstant() && r.known.constant() == 0)
        {
            return ctx.fail("a -1 reshape dimension cannot be inferred when another dimension is 0");
        }
        r.extents[r.inferred] = r.runTimeSlots.empty() ? volume.floorDiv(r.known) : volume.floorDiv(r.known.max(one));
        r.known = r.known * r.extents[r.inferred];
    }
    if (!r.runTimeSlots.empty())
    {
        Dim const inferredExtent = volume.floorDiv(r.known.max(one));
        for (RunTimeSlot const& slot : r.runTimeSlots)
        {
            r.extents[slot.index] = slot.isMinusOne * inferredExtent + (one - slot.isMinusOne) * slot.resolved;
        }
    }
    if (volume.isConstant() && r.known.isConstant() && volume.constant() != r.known.constant())
    {
        return ctx.fail("the reshape changes the volume from " + std::to_string(volume.constant()) + " to "
            + std::to_string(r.known.constant()));
    }
    dims = std::move(r.extents);
    return true;
}

} // namespace

nvinfer1::Permutation ShuffleParams::identityPermutation()
{
    nvinfer1::Permutation identity{};
    for (int32_t i = 0; i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        identity.order[i] = i;
    }
    return identity;
}

bool ShuffleParams::reshapesOnly() const
{
    nvinfer1::Permutation const identity = identityPermutation();
    return std::equal(std::begin(firstTranspose.order), std::end(firstTranspose.order), std::begin(identity.order))
        && std::equal(std::begin(secondTranspose.order), std::end(secondTranspose.order), std::begin(identity.order));
}

bool ShuffleParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() > 2)
    {
        return ctx.fail("a shuffle takes one data input and an optional shape input");
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < ctx.rank(0); ++i)
    {
        dims.push_back(ctx.dim(0, i));
    }
    // Known values stay known through the shuffle while every extent is a constant (Pad's pads pass through
    // [rank, 2] reshapes and transposes on their way from the input's shape), and always between 0-D and 1-D.
    std::optional<std::vector<nvinfer1::IDimensionExpr const*>> values = ctx.input(0).values;
    transposeValues(values, dims, firstTranspose);
    if (!permute(ctx, dims, firstTranspose, "first"))
    {
        return false;
    }
    std::optional<std::vector<Dim>> requested;
    if (!requestedExtents(ctx, reshape, requested))
    {
        return false;
    }
    if (requested && !reshapeDims(ctx, dims, *requested, zeroIsPlaceholder))
    {
        return false;
    }
    transposeValues(values, dims, secondTranspose);
    if (!permute(ctx, dims, secondTranspose, "second"))
    {
        return false;
    }
    if (!ctx.setOutput(0, ctx.input(0).type, dims))
    {
        return false;
    }
    ctx.output(0).values = std::move(values);
    return true;
}

} // namespace kiln::network
