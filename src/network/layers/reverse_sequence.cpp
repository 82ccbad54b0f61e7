#include "network/layers/reverse_sequence.h"

#include "core/data_type.h"

namespace kiln::network
{
namespace
{

//! Fails unless `axis` (the one named `what`) addresses one of the input's `rank` axes.
bool checkAxis(InferenceContext& ctx, int32_t axis, char const* what, int32_t rank)
{
    if (axis < 0 || axis >= rank)
    {
        return ctx.fail(std::string("the reverse sequence ") + what + " " + std::to_string(axis)
            + " is out of range [0, " + std::to_string(rank) + ") for an input of rank " + std::to_string(rank));
    }
    return true;
}

//! Fails unless both axes address the input's axes, differ, and the lengths hold one value per index of the batch
//! axis (where both extents are known).
bool checkAxes(InferenceContext& ctx, int32_t batchAxis, int32_t sequenceAxis)
{
    int32_t const rank = ctx.rank(0);
    if (!checkAxis(ctx, batchAxis, "batch axis", rank) || !checkAxis(ctx, sequenceAxis, "sequence axis", rank))
    {
        return false;
    }
    if (batchAxis == sequenceAxis)
    {
        return ctx.fail("the reverse sequence batch axis and sequence axis are both " + std::to_string(batchAxis)
            + "; they must differ");
    }
    Dim const count = ctx.dim(1, 0);
    Dim const batch = ctx.dim(0, batchAxis);
    if (count.isConstant() && batch.isConstant() && count.constant() != batch.constant())
    {
        return ctx.fail("the reverse sequence lengths (input 1) hold " + std::to_string(count.constant())
            + " values, but the batch axis " + std::to_string(batchAxis) + " has extent "
            + std::to_string(batch.constant()));
    }
    return true;
}

} // namespace

bool ReverseSequenceParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a reverse sequence layer takes an input and sequence lengths");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (elementSize(type) == 0)
    {
        return ctx.fail(
            "the reverse sequence input (input 0) cannot be " + dataTypeName(type) + " (not byte-addressable)");
    }
    int32_t const rank = ctx.rank(0);
    if (rank < 2)
    {
        return ctx.fail("the reverse sequence input (input 0) must have rank 2 or more, not " + std::to_string(rank));
    }
    nvinfer1::DataType const lengthsType = ctx.input(1).type;
    if (!isIndexType(lengthsType))
    {
        return ctx.fail(
            "the reverse sequence lengths (input 1) must be INT32 or INT64, not " + dataTypeName(lengthsType));
    }
    if (ctx.rank(1) != 1)
    {
        return ctx.fail(
            "the reverse sequence lengths (input 1) must be 1-D [batch], not of rank " + std::to_string(ctx.rank(1)));
    }
    // The axes are set after the layer is added (TensorRT's API), and the output's shape does not depend on them.
    if (ctx.building() && !checkAxes(ctx, batchAxis, sequenceAxis))
    {
        return false;
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.push_back(ctx.dim(0, i));
    }
    return ctx.setOutput(0, type, dims);
}

} // namespace kiln::network
