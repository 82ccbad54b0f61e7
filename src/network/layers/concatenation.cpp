#include "network/layers/concatenation.h"

#include "network/layers/layer_utils.h"

namespace kiln::network
{

bool ConcatenationParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() < 1)
    {
        return ctx.fail("a concatenation takes at least one input");
    }
    int32_t const rank = ctx.rank(0);
    int32_t const normalized = normalizeAxis(axis, rank);
    if (normalized < 0)
    {
        return ctx.fail("axis " + std::to_string(axis) + " is outside the inputs' rank " + std::to_string(rank));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.push_back(ctx.dim(0, i));
    }
    bool allValuesKnown = ctx.input(0).values.has_value();
    for (int32_t input = 1; input < ctx.nbInputs(); ++input)
    {
        if (!ctx.hasInput(input) || ctx.rank(input) != rank || ctx.input(input).type != ctx.input(0).type)
        {
            return ctx.fail("input " + std::to_string(input) + " differs from input 0 in rank or type");
        }
        for (int32_t i = 0; i < rank; ++i)
        {
            Dim const extent = ctx.dim(input, i);
            if (i == normalized)
            {
                dims[i] = dims[i] + extent;
            }
            else if (extent.isConstant() && dims[i].isConstant() && extent.constant() != dims[i].constant())
            {
                return ctx.fail("input " + std::to_string(input) + " has extent " + std::to_string(extent.constant())
                    + " on axis " + std::to_string(i) + " where input 0 has " + std::to_string(dims[i].constant()));
            }
            else if (!dims[i].isConstant() && extent.isConstant())
            {
                dims[i] = extent; // equal at run time: the constant is the better description
            }
        }
        allValuesKnown = allValuesKnown && ctx.input(input).values.has_value();
    }
    if (!ctx.setOutput(0, ctx.input(0).type, dims))
    {
        return false;
    }
    // Concatenating shape tensors (rank 1) builds a shape whose values stay known.
    if (allValuesKnown && rank == 1)
    {
        std::vector<nvinfer1::IDimensionExpr const*> values;
        for (int32_t input = 0; input < ctx.nbInputs(); ++input)
        {
            values.insert(values.end(), ctx.input(input).values->begin(), ctx.input(input).values->end());
        }
        ctx.output(0).values = std::move(values);
    }
    return true;
}

} // namespace kiln::network
