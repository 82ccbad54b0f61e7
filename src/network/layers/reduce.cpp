#include "network/layers/reduce.h"

#include "core/data_type.h"

namespace kiln::network
{
namespace
{

//! Sum, product, maximum or minimum of a shape tensor's values (the number of elements a shape holds, the largest
//! extent): one value when the 1-D input is reduced, the values themselves when nothing is; none otherwise.
std::optional<std::vector<nvinfer1::IDimensionExpr const*>> reducedValues(
    InferenceContext& ctx, nvinfer1::ReduceOperation op, uint32_t reduceAxes)
{
    using nvinfer1::ReduceOperation;
    auto const& input = ctx.input(0).values;
    if (!input || ctx.rank(0) > 1 || (reduceAxes & 1U) == 0 || input->empty())
    {
        return reduceAxes == 0 ? input : std::nullopt;
    }
    Dim result(ctx.builder(), input->front());
    for (size_t i = 1; i < input->size(); ++i)
    {
        Dim const value(ctx.builder(), (*input)[i]);
        switch (op)
        {
        case ReduceOperation::kSUM: result = result + value; break;
        case ReduceOperation::kPROD: result = result * value; break;
        case ReduceOperation::kMAX: result = result.max(value); break;
        case ReduceOperation::kMIN: result = result.min(value); break;
        default: return std::nullopt; // kAVG of several values: not shape arithmetic
        }
    }
    return result.get() != nullptr ? std::optional(std::vector<nvinfer1::IDimensionExpr const*>{result.get()})
                                   : std::nullopt;
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
    auto const op = static_cast<int32_t>(operation);
    if (op < 0 || op > static_cast<int32_t>(nvinfer1::ReduceOperation::kAVG))
    {
        return ctx.fail("reduce operation " + std::to_string(op)
            + " is not one a reduce layer computes (kSUM, kPROD, kMAX, kMIN or kAVG; kNONE serves collective "
              "operations only)");
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
    ctx.output(0).values = reducedValues(ctx, operation, reduceAxes);
    return true;
}

} // namespace kiln::network
