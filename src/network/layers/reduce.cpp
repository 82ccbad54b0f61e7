#include "network/layers/reduce.h"

#include "core/data_type.h"

namespace kiln::network
{

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
    return ctx.setOutput(0, type, dims);
}

} // namespace kiln::network
