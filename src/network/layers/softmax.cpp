#include "network/layers/softmax.h"

#include "core/data_type.h"

#include <bit>

namespace kiln::network
{

bool SoftMaxParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() != 1)
    {
        return ctx.fail("a softmax layer takes one input");
    }
    if (!isFloatType(ctx.input(0).type))
    {
        return ctx.fail("softmax takes FLOAT, HALF or BF16 input, not " + dataTypeName(ctx.input(0).type));
    }
    int32_t const rank = ctx.rank(0);
    if (std::popcount(axes) != 1 || std::countr_zero(axes) >= std::max(rank, 1))
    {
        return ctx.fail("softmax axes " + std::to_string(axes) + " must name exactly one axis of the rank-"
            + std::to_string(rank) + " input");
    }
    return ctx.setOutput(0, ctx.input(0).type, ctx.input(0).dims);
}

} // namespace kiln::network
