#include "network/layers/one_hot.h"

#include "network/layers/shape_input.h"
#include "core/data_type.h"

namespace kiln::network
{

bool OneHotParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 3 || !ctx.hasInput(0) || !ctx.hasInput(1) || !ctx.hasInput(2))
    {
        return ctx.fail("a one-hot layer takes indices, values and depth inputs");
    }
    TensorFacts const& indices = ctx.input(0);
    if (!isIndexType(indices.type))
    {
        return ctx.fail("one-hot indices (input 0) must be INT32 or INT64, not " + dataTypeName(indices.type));
    }
    TensorFacts const& values = ctx.input(1);
    Dim const valueCount = values.dims.nbDims == 1 ? ctx.dim(1, 0) : Dim();
    if (!valueCount.isConstant() || valueCount.constant() != 2)
    {
        return ctx.fail("one-hot values (input 1) must be a 1-D tensor of two elements [off, on]");
    }
    if (values.type == nvinfer1::DataType::kINT4 || values.type == nvinfer1::DataType::kFP4)
    {
        return ctx.fail("one-hot values (input 1) cannot be " + dataTypeName(values.type) + " (not byte-addressable)");
    }
    std::vector<Dim> depth;
    if (!shapeInputValues(ctx, 2, 0, "the one-hot depth", depth))
    {
        return false;
    }
    if (depth[0].isConstant() && depth[0].constant() < 1)
    {
        return ctx.fail("the one-hot depth is " + std::to_string(depth[0].constant()) + "; must be positive");
    }
    int32_t const rank = ctx.rank(0);
    if (axis < -(rank + 1) || axis > rank)
    {
        return ctx.fail("one-hot axis " + std::to_string(axis) + " is out of range [" + std::to_string(-(rank + 1))
            + ", " + std::to_string(rank) + "] for indices of rank " + std::to_string(rank));
    }
    int32_t const position = axis < 0 ? axis + rank + 1 : axis;
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.push_back(ctx.dim(0, i));
    }
    dims.insert(dims.begin() + position, depth[0]);
    return ctx.setOutput(0, values.type, dims);
}

} // namespace kiln::network
