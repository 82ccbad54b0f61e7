#include "network/layers/scale.h"

#include "core/data_type.h"

namespace kiln::network
{

bool ScaleParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() != 1)
    {
        return ctx.fail("a scale layer takes one input");
    }
    if (!isFloatType(ctx.input(0).type))
    {
        return ctx.fail("scale takes FLOAT, HALF or BF16 input, not " + dataTypeName(ctx.input(0).type));
    }
    int32_t const rank = ctx.rank(0);
    if (channelAxis < 0 || channelAxis >= rank)
    {
        return ctx.fail(
            "channel axis " + std::to_string(channelAxis) + " is outside the input's rank " + std::to_string(rank));
    }
    // The weight count must be known at build time: the extents it depends on must be constants.
    int64_t expected = 1;
    if (mode != nvinfer1::ScaleMode::kUNIFORM)
    {
        int32_t const last = mode == nvinfer1::ScaleMode::kCHANNEL ? channelAxis + 1 : rank;
        for (int32_t axis = channelAxis; axis < last; ++axis)
        {
            Dim const extent = ctx.dim(0, axis);
            if (!extent.isConstant())
            {
                return ctx.fail(
                    "axis " + std::to_string(axis) + " that the scale weights cover must be known at build time");
            }
            expected *= extent.constant();
        }
    }
    for (auto const& [weights, name] :
        {std::pair{&shift, "shift"}, std::pair{&scale, "scale"}, std::pair{&power, "power"}})
    {
        if (!weights->empty() && weights->count() != expected)
        {
            return ctx.fail(std::string(name) + " has " + std::to_string(weights->count()) + " values; expected 0 or "
                + std::to_string(expected));
        }
    }
    return ctx.setOutput(0, ctx.input(0).type, ctx.input(0).dims);
}

} // namespace kiln::network
