#include "network/layers/unary.h"

#include "core/data_type.h"

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

bool oneInput(InferenceContext& ctx, char const* kind)
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail(std::string("a ") + kind + " layer takes one input");
    }
    return true;
}

//! The value of a unary operation on a shape value (a whole number; 0 or 1 for BOOL), or null for operations
//! that are not shape arithmetic.
nvinfer1::IDimensionExpr const* unaryValue(
    nvinfer1::IExprBuilder& builder, UnaryOperation operation, nvinfer1::IDimensionExpr const& value)
{
    using nvinfer1::DimensionOperation;
    auto const& zero = *builder.constant(0);
    switch (operation)
    {
    case UnaryOperation::kNEG: return builder.operation(DimensionOperation::kSUB, zero, value);
    case UnaryOperation::kABS:
        return builder.operation(
            DimensionOperation::kMAX, value, *builder.operation(DimensionOperation::kSUB, zero, value));
    case UnaryOperation::kNOT: return builder.operation(DimensionOperation::kEQUAL, value, zero);
    case UnaryOperation::kCEIL:
    case UnaryOperation::kFLOOR:
    case UnaryOperation::kROUND: return &value; // whole numbers already (torchvision's ceil(size / 1.0))
    default: return nullptr;
    }
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
    DataType const outputType
        = operation == UnaryOperation::kISINF || operation == UnaryOperation::kISNAN ? DataType::kBOOL : type;
    if (!ctx.setOutput(0, outputType, ctx.input(0).dims))
    {
        return false;
    }
    if (ctx.input(0).values)
    {
        std::vector<nvinfer1::IDimensionExpr const*> values;
        for (auto const* value : *ctx.input(0).values)
        {
            values.push_back(unaryValue(ctx.builder(), operation, *value));
            if (values.back() == nullptr)
            {
                return true; // not shape arithmetic: an ordinary tensor
            }
        }
        ctx.output(0).values = std::move(values);
    }
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
