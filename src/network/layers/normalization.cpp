#include "network/layers/normalization.h"

#include "core/data_type.h"

namespace kiln::network
{

bool NormalizationParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 3 || !ctx.hasInput(0) || !ctx.hasInput(1) || !ctx.hasInput(2))
    {
        return ctx.fail("a normalization layer takes data, scale and bias inputs");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (!isFloatType(type) || !isFloatType(ctx.input(1).type) || !isFloatType(ctx.input(2).type))
    {
        return ctx.fail("normalization data, scale and bias must be floating-point");
    }
    int32_t const rank = ctx.rank(0);
    if (ctx.rank(1) != rank || ctx.rank(2) != rank)
    {
        return ctx.fail("normalization scale and bias must have the data's rank " + std::to_string(rank));
    }
    if (axes == 0 || (rank < 32 && (axes >> rank) != 0))
    {
        return ctx.fail("normalization axes mask " + std::to_string(axes) + " must name axes of the input's rank "
            + std::to_string(rank));
    }
    if (nbGroups < 1)
    {
        return ctx.fail("normalization nbGroups is " + std::to_string(nbGroups) + "; must be positive");
    }
    if (nbGroups > 1)
    {
        if (rank < 2)
        {
            return ctx.fail("group normalization needs a channel axis 1");
        }
        Dim const channels = ctx.dim(0, 1);
        if (channels.isConstant() && channels.constant() % nbGroups != 0)
        {
            return ctx.fail("normalization channels " + std::to_string(channels.constant()) + " are not divisible into "
                + std::to_string(nbGroups) + " groups");
        }
    }
    return ctx.setOutput(0, type, ctx.input(0).dims);
}

} // namespace kiln::network
