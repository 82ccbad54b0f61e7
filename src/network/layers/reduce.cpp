#include "network/layers/reduce.h"

#include "core/data_type.h"

namespace kiln::network
{

namespace
{

//! Reducing a 1-D tensor of known values to one keeps its value known: the largest of a list of extents, as
//! torchvision's detection transform computes the batch's image size. Averages are not whole numbers.
void propagateValues(InferenceContext& ctx, nvinfer1::ReduceOperation operation, uint32_t reduceAxes)
{
    using nvinfer1::DimensionOperation;
    using nvinfer1::ReduceOperation;
    auto const& values = ctx.input(0).values;
    if (!values || values->empty() || ctx.rank(0) != 1 || reduceAxes != 1U)
    {
        return;
    }
    DimensionOperation combine{};
    switch (operation)
    {
    case ReduceOperation::kSUM: combine = DimensionOperation::kSUM; break;
    case ReduceOperation::kPROD: combine = DimensionOperation::kPROD; break;
    case ReduceOperation::kMAX: combine = DimensionOperation::kMAX; break;
    case ReduceOperation::kMIN: combine = DimensionOperation::kMIN; break;
    default: return;
    }
    nvinfer1::IDimensionExpr const* result = values->front();
    for (size_t i = 1; i < values->size() && result != nullptr; ++i)
    {
        result = ctx.builder().operation(combine, *result, *(*values)[i]);
    }
    if (result != nullptr)
    {
        ctx.output(0).values = std::vector<nvinfer1::IDimensionExpr const*>{result};
    }
}

} // namespace

bool ReduceParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a reduce layer takes one input");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    // The CPU kernel accumulates floats in double and integers exactly; 8-bit and boolean data have no reduce.
    if (!isFloatType(type) && type != nvinfer1::DataType::kINT32 && type != nvinfer1::DataType::kINT64)
    {
        return ctx.fail("a reduce layer does not take " + dataTypeName(type) + " input");
    }
    int32_t const rank = ctx.rank(0);
    if (rank < 32 && (reduceAxes >> rank) != 0)
    {
        return ctx.fail("reduce axes mask " + std::to_string(reduceAxes) + " names an axis beyond the input's rank "
            + std::to_string(rank));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        if ((reduceAxes >> i) & 1U)
        {
            if (keepDimensions)
            {
                dims.push_back(ctx.constant(1));
            }
        }
        else
        {
            dims.push_back(ctx.dim(0, i));
        }
    }
    if (!ctx.setOutput(0, type, dims))
    {
        return false;
    }
    propagateValues(ctx, operation, reduceAxes);
    return true;
}

} // namespace kiln::network
