#include "network/layers/one_hot.h"

#include "network/layers/shape_input.h"
#include "core/data_type.h"

namespace kiln::network
{
namespace
{

//! One-hot of a 0-D shape value over a constant depth is a shape tensor: entry j is on where the index (a negative
//! one counted from the end, as the kernel does) is j, off elsewhere.
void propagateValues(InferenceContext& ctx, Dim const& depth)
{
    auto const& index = ctx.input(0).values;
    auto const& offOn = ctx.input(1).values;
    if (!index || ctx.rank(0) != 0 || !offOn || offOn->size() != 2 || !depth.isConstant()
        || depth.constant() > nvinfer1::Dims::MAX_DIMS)
    {
        return;
    }
    Dim const raw(ctx.builder(), index->front());
    Dim const wrapped = raw + raw.less(ctx.constant(0)) * depth;
    Dim const off(ctx.builder(), (*offOn)[0]);
    Dim const on(ctx.builder(), (*offOn)[1]);
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (int64_t j = 0; j < depth.constant(); ++j)
    {
        Dim const value = off + wrapped.equal(ctx.constant(j)) * (on - off);
        if (value.get() == nullptr)
        {
            return;
        }
        values.push_back(value.get());
    }
    ctx.output(0).values = std::move(values);
}

} // namespace

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
    if (!ctx.setOutput(0, values.type, dims))
    {
        return false;
    }
    propagateValues(ctx, depth[0]);
    return true;
}

} // namespace kiln::network
