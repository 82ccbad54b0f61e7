#include "network/layers/padding.h"

namespace kiln::network
{

bool PaddingParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a padding layer takes one input");
    }
    int32_t const rank = ctx.rank(0);
    int32_t const padded = prePadding.nbDims;
    if (postPadding.nbDims != padded || padded > rank)
    {
        return ctx.fail("the pre-padding (" + std::to_string(padded) + " dims) and post-padding ("
            + std::to_string(postPadding.nbDims) + " dims) must have one rank, at most the input's "
            + std::to_string(rank));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        int32_t const p = i - (rank - padded);
        Dim extent = ctx.dim(0, i);
        if (p >= 0)
        {
            int64_t amount = 0; // either side may be negative (a crop)
            if (__builtin_add_overflow(prePadding.d[p], postPadding.d[p], &amount))
            {
                return ctx.fail("the padding of axis " + std::to_string(i) + " (" + std::to_string(prePadding.d[p])
                    + " before, " + std::to_string(postPadding.d[p]) + " after) overflows int64");
            }
            extent = extent + amount;
            if (extent.isConstant() && extent.constant() < 0)
            {
                return ctx.fail("the padding crops axis " + std::to_string(i) + " below zero ("
                    + std::to_string(extent.constant()) + ")");
            }
        }
        dims.push_back(extent);
    }
    return ctx.setOutput(0, ctx.input(0).type, dims);
}

} // namespace kiln::network
