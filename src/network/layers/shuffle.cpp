#include "network/layers/shuffle.h"

#include <algorithm>

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
    if (!permute(ctx, dims, firstTranspose, "first"))
    {
        return false;
    }
    // The requested extents: from the shape input's known values, or from the static dimensions.
    std::optional<std::vector<Dim>> requested;
    if (ctx.hasInput(1))
    {
        TensorFacts const& shape = ctx.input(1);
        if (shape.dims.nbDims != 1 || !shape.values)
        {
            return ctx.fail("the reshape dimensions (input 1) must be a 1-D shape tensor whose values are known while "
                "shapes are inferred (computed from shapes and constants)");
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
    if (requested)
    {
        Dim volume = ctx.constant(1);
        for (Dim const& d : dims)
        {
            volume = volume * d;
        }
        int32_t inferred = -1;
        Dim known = ctx.constant(1);
        std::vector<Dim> result = *requested;
        // Values known only at run time (a shape-tensor input's) may still be 0 or -1 then: their extents are
        // written as expressions that choose, with 0/1 flags, what a constant 0 or -1 would have meant.
        struct RunTimeSlot
        {
            int32_t index;
            Dim isMinusOne;
            Dim resolved;
        };
        std::vector<RunTimeSlot> runTimeSlots;
        Dim const one = ctx.constant(1);
        for (int32_t i = 0; i < static_cast<int32_t>(result.size()); ++i)
        {
            Dim const& value = result[i];
            if (!value.isConstant())
            {
                Dim resolved = value;
                if (zeroIsPlaceholder && i < static_cast<int32_t>(dims.size()))
                {
                    Dim const isZero = value.equal(ctx.constant(0));
                    resolved = isZero * dims[i] + (one - isZero) * value;
                }
                Dim const isMinusOne = value.equal(ctx.constant(-1));
                known = known * (isMinusOne + (one - isMinusOne) * resolved);
                runTimeSlots.push_back({i, isMinusOne, resolved});
                continue;
            }
            if (value.isConstant() && value.constant() == 0 && zeroIsPlaceholder)
            {
                if (i >= static_cast<int32_t>(dims.size()))
                {
                    return ctx.fail("reshape dimension " + std::to_string(i)
                        + " is 0 (copy the input extent) but the input has no such dimension");
                }
                result[i] = dims[i];
            }
            else if (value.isConstant() && value.constant() == -1)
            {
                if (inferred >= 0)
                {
                    return ctx.fail("the reshape dimensions hold more than one -1");
                }
                inferred = i;
                continue;
            }
            else if (value.isConstant() && value.constant() < 0)
            {
                return ctx.fail("reshape dimension " + std::to_string(i) + " is " + std::to_string(value.constant()));
            }
            known = known * result[i];
        }
        if (inferred >= 0)
        {
            if (known.isConstant() && known.constant() == 0)
            {
                return ctx.fail("a -1 reshape dimension cannot be inferred when another dimension is 0");
            }
            result[inferred] = runTimeSlots.empty() ? volume.floorDiv(known) : volume.floorDiv(known.max(one));
            known = known * result[inferred];
        }
        if (!runTimeSlots.empty())
        {
            Dim const inferredExtent = volume.floorDiv(known.max(one));
            for (RunTimeSlot const& slot : runTimeSlots)
            {
                result[slot.index] = slot.isMinusOne * inferredExtent + (one - slot.isMinusOne) * slot.resolved;
            }
        }
        if (volume.isConstant() && known.isConstant() && volume.constant() != known.constant())
        {
            return ctx.fail("the reshape changes the volume from " + std::to_string(volume.constant()) + " to "
                + std::to_string(known.constant()));
        }
        dims = std::move(result);
    }
    if (!permute(ctx, dims, secondTranspose, "second"))
    {
        return false;
    }
    if (!ctx.setOutput(0, ctx.input(0).type, dims))
    {
        return false;
    }
    // Reshaping a shape tensor between 0-D and 1-D keeps its values known (transposes of rank <= 1 are trivial).
    if (ctx.input(0).values && dims.size() <= 1)
    {
        ctx.output(0).values = ctx.input(0).values;
    }
    return true;
}

} // namespace kiln::network
