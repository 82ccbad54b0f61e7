#include "network/layers/unary.h"

#include "core/data_type.h"

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

//! The values of a unary operation on shape values, as exporters write them (Neg of a shape, Abs of a difference,
//! Not of a comparison); none for the operations that are not shape arithmetic.
std::optional<std::vector<nvinfer1::IDimensionExpr const*>> unaryValues(InferenceContext& ctx, UnaryOperation op)
{
    auto const& input = ctx.input(0).values;
    if (!input || (op != UnaryOperation::kABS && op != UnaryOperation::kNEG && op != UnaryOperation::kNOT))
    {
        return std::nullopt;
    }
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (auto const* value : *input)
    {
        Dim const x(ctx.builder(), value);
        Dim const result = op == UnaryOperation::kNOT ? ctx.constant(1) - x // a comparison's 0 or 1
            : op == UnaryOperation::kNEG              ? ctx.constant(0) - x
                                                      : x.max(ctx.constant(0) - x);
        if (result.get() == nullptr)
        {
            return std::nullopt;
        }
        values.push_back(result.get());
    }
    return values;
}

bool oneInput(InferenceContext& ctx, char const* kind)
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail(std::string("a ") + kind + " layer takes one input");
    }
    return true;
}

} // namespace

bool UnaryParams::infer(InferenceContext& ctx) const
{
    if (!oneInput(ctx, "unary"))
    {
        return false;
    }
    DataType const type = ctx.input(0).type;
    bool const logical = operation == UnaryOperation::kNOT;
    bool const integerOk = operation == UnaryOperation::kABS || operation == UnaryOperation::kNEG
        || operation == UnaryOperation::kSIGN;
    if (logical ? type != DataType::kBOOL : !(isFloatType(type) || (integerOk && isIntegerType(type))))
    {
        return ctx.fail("unary operation " + std::to_string(static_cast<int32_t>(operation)) + " does not take "
            + dataTypeName(type) + " input");
    }
    DataType const outputType = operation == UnaryOperation::kISINF || operation == UnaryOperation::kISNAN
        ? DataType::kBOOL
        : type;
    if (!ctx.setOutput(0, outputType, ctx.input(0).dims))
    {
        return false;
    }
    ctx.output(0).values = unaryValues(ctx, operation);
    return true;
}

bool IdentityParams::infer(InferenceContext& ctx) const
{
    if (!oneInput(ctx, "identity"))
    {
        return false;
    }
    if (!ctx.setOutput(0, ctx.input(0).type, ctx.input(0).dims))
    {
        return false;
    }
    ctx.output(0).values = ctx.input(0).values;
    return true;
}

bool CastParams::infer(InferenceContext& ctx) const
{
    if (!oneInput(ctx, "cast"))
    {
        return false;
    }
    if (!ctx.setOutput(0, toType, ctx.input(0).dims))
    {
        return false;
    }
    // Shape values are whole numbers: they survive a cast to an integer type, and to FLOAT (exact below 2^24), which
    // exporters write for torch.arange(n, dtype=float) and casts back.
    if (isIndexType(toType) || toType == DataType::kFLOAT)
    {
        ctx.output(0).values = ctx.input(0).values;
    }
    return true;
}

bool ShapeParams::infer(InferenceContext& ctx) const
{
    if (!oneInput(ctx, "shape"))
    {
        return false;
    }
    int32_t const rank = ctx.rank(0);
    if (!ctx.setOutput(0, DataType::kINT64, std::vector<Dim>{ctx.constant(rank)}))
    {
        return false;
    }
    std::vector<nvinfer1::IDimensionExpr const*> values(ctx.input(0).dims.d, ctx.input(0).dims.d + rank);
    ctx.output(0).values = std::move(values);
    return true;
}

} // namespace kiln::network
