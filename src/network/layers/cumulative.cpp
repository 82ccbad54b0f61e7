#include "network/layers/cumulative.h"

#include "network/layers/shape_input.h"
#include "core/data_type.h"

namespace kiln::network
{

bool CumulativeParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a cumulative layer takes an input and an axis");
    }
    TensorFacts const& input = ctx.input(0);
    if (!isFloatType(input.type) && !isIndexType(input.type))
    {
        return ctx.fail(
            "the cumulative input must be FLOAT, HALF, BF16, INT32 or INT64, not " + dataTypeName(input.type));
    }
    int32_t const rank = ctx.rank(0);
    if (rank < 1)
    {
        return ctx.fail("the cumulative input must have rank 1 or more");
    }
    std::vector<Dim> axis;
    if (!shapeInputValues(ctx, 1, 0, "the cumulative axis", axis))
    {
        return false;
    }
    if (!axis[0].isConstant())
    {
        return ctx.fail("the cumulative axis (input 1) must be a build-time constant");
    }
    int64_t const value = axis[0].constant();
    if (value < -rank || value >= rank)
    {
        return ctx.fail("the cumulative axis " + std::to_string(value) + " is out of range for an input of rank "
            + std::to_string(rank));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.push_back(ctx.dim(0, i));
    }
    return ctx.setOutput(0, input.type, dims);
}

bool CumulativeLayer::setOperation(nvinfer1::CumulativeOperation op) noexcept
{
    if (static_cast<int32_t>(op) < 0 || static_cast<int32_t>(op) >= nvinfer1::EnumMax<nvinfer1::CumulativeOperation>())
    {
        return false;
    }
    network().invalidate();
    mutableParams().operation = op;
    return true;
}

} // namespace kiln::network
