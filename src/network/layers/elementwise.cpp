#include "network/layers/elementwise.h"

#include "core/data_type.h"
#include "network/network.h"

#include <algorithm>

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

bool isLogical(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kAND || op == ElementWiseOperation::kOR || op == ElementWiseOperation::kXOR;
}

bool isComparison(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
        || op == ElementWiseOperation::kLESS;
}

//! a / b rounded toward zero, as kDIV divides integers, from the operations shape expressions have: the floor
//! quotient, plus one where the division is inexact and the operands' signs differ. nullptr where the builder
//! fails.
nvinfer1::IDimensionExpr const* truncatedQuotient(
    nvinfer1::IExprBuilder& builder, nvinfer1::IDimensionExpr const& a, nvinfer1::IDimensionExpr const& b)
{
    using nvinfer1::DimensionOperation;
    auto const* floor = builder.operation(DimensionOperation::kFLOOR_DIV, a, b);
    auto const* product = floor ? builder.operation(DimensionOperation::kPROD, *floor, b) : nullptr;
    auto const* remainder = product ? builder.operation(DimensionOperation::kSUB, a, *product) : nullptr;
    auto const* exact = remainder ? builder.operation(DimensionOperation::kEQUAL, *remainder, *builder.constant(0))
                                  : nullptr;
    auto const* inexact = exact ? builder.operation(DimensionOperation::kSUB, *builder.constant(1), *exact) : nullptr;
    auto const* signs = builder.operation(DimensionOperation::kPROD, a, b);
    auto const* differ = signs ? builder.operation(DimensionOperation::kLESS, *signs, *builder.constant(0)) : nullptr;
    auto const* correction = inexact && differ ? builder.operation(DimensionOperation::kPROD, *inexact, *differ)
                                               : nullptr;
    return correction ? builder.operation(DimensionOperation::kSUM, *floor, *correction) : nullptr;
}

//! Shape-value arithmetic for integer shape tensors (sizes computed from shapes).
nvinfer1::IDimensionExpr const* combineValues(nvinfer1::IExprBuilder& builder, ElementWiseOperation op,
    nvinfer1::IDimensionExpr const* a, nvinfer1::IDimensionExpr const* b)
{
    using nvinfer1::DimensionOperation;
    switch (op)
    {
    case ElementWiseOperation::kSUM: return builder.operation(DimensionOperation::kSUM, *a, *b);
    case ElementWiseOperation::kSUB: return builder.operation(DimensionOperation::kSUB, *a, *b);
    case ElementWiseOperation::kPROD: return builder.operation(DimensionOperation::kPROD, *a, *b);
    case ElementWiseOperation::kMAX: return builder.operation(DimensionOperation::kMAX, *a, *b);
    case ElementWiseOperation::kMIN: return builder.operation(DimensionOperation::kMIN, *a, *b);
    case ElementWiseOperation::kFLOOR_DIV: return builder.operation(DimensionOperation::kFLOOR_DIV, *a, *b);
    case ElementWiseOperation::kDIV: return truncatedQuotient(builder, *a, *b);
    case ElementWiseOperation::kEQUAL: return builder.operation(DimensionOperation::kEQUAL, *a, *b);
    case ElementWiseOperation::kLESS: return builder.operation(DimensionOperation::kLESS, *a, *b);
    case ElementWiseOperation::kGREATER: return builder.operation(DimensionOperation::kLESS, *b, *a);
    default: return nullptr; // kPOW and the logical operations: not shape arithmetic
    }
}

//! Whether `divisor` holds known values that are all 1.
bool dividesByOne(TensorFacts const& divisor)
{
    return divisor.values
        && std::all_of(divisor.values->begin(), divisor.values->end(), [](nvinfer1::IDimensionExpr const* value) {
               return value->isConstant() && value->getConstantValue() == 1;
           });
}

} // namespace

bool broadcastShapes(InferenceContext& ctx, int32_t first, int32_t second, std::vector<Dim>& out)
{
    int32_t const rank = ctx.rank(first);
    if (ctx.rank(second) != rank)
    {
        return ctx.fail("inputs " + std::to_string(first) + " and " + std::to_string(second) + " have ranks "
            + std::to_string(rank) + " and " + std::to_string(ctx.rank(second))
            + "; broadcasting needs equal ranks (insert 1-extents with a shuffle)");
    }
    out.clear();
    for (int32_t i = 0; i < rank; ++i)
    {
        Dim a = ctx.dim(first, i);
        Dim b = ctx.dim(second, i);
        if (a.isConstant() && b.isConstant() && a.constant() != b.constant() && a.constant() != 1 && b.constant() != 1)
        {
            return ctx.fail("dimension " + std::to_string(i) + " does not broadcast: " + std::to_string(a.constant())
                + " vs " + std::to_string(b.constant()));
        }
        out.push_back(broadcastExtent(a, b));
    }
    return true;
}

Dim broadcastExtent(Dim a, Dim b)
{
    bool const aIsOne = a.isConstant() && a.constant() == 1;
    bool const bIsOne = b.isConstant() && b.constant() == 1;
    if (aIsOne || bIsOne)
    {
        return aIsOne ? b : a;
    }
    // An extent of 0 broadcasts as numpy's does: with 1 it gives 0, with anything else the run fails (the kernels
    // check). The larger of the two, right for equal extents and a 1, would turn 0 with 1 into 1.
    if (a.isConstant() && a.constant() == 0)
    {
        return a;
    }
    if ((b.isConstant() && b.constant() == 0) || a.get() == b.get())
    {
        return b;
    }
    return a.max(b); // equal at run time, or one of them 1
}

bool ElementWiseParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("an element-wise layer takes exactly two inputs");
    }
    DataType const type = ctx.input(0).type;
    if (ctx.input(1).type != type)
    {
        return ctx.fail("the two inputs have different types; insert a cast layer");
    }
    if (isLogical(operation) != (type == DataType::kBOOL))
    {
        return ctx.fail(isLogical(operation) ? "logical operations (AND, OR, XOR) take BOOL inputs"
                                             : "this operation does not take BOOL inputs");
    }
    // What the CPU reference computes in: floats, and signed integers wide enough for arithmetic.
    bool const supported = type == DataType::kBOOL || type == DataType::kFLOAT || type == DataType::kHALF
        || type == DataType::kBF16 || type == DataType::kINT8 || type == DataType::kINT32 || type == DataType::kINT64;
    if (!supported)
    {
        return ctx.fail("element-wise operations do not take " + dataTypeName(type) + " inputs; cast them first");
    }
    std::vector<Dim> dims;
    if (!broadcastShapes(ctx, 0, 1, dims))
    {
        return false;
    }
    DataType const outputType = isComparison(operation) ? DataType::kBOOL : type;
    if (!ctx.setOutput(0, outputType, dims))
    {
        return false;
    }
    auto const& a = ctx.input(0).values;
    auto const& b = ctx.input(1).values;
    // Comparisons keep values too (0 or 1, a BOOL shape tensor), as exporters select shape entries with them. Values
    // are whole numbers, so a FLOAT quotient is not among them unless the divisor is 1 (torchvision's detection
    // transform divides sizes by a size_divisible of 1.0).
    bool const wholeResult = operation != ElementWiseOperation::kDIV || isIndexType(type) || dividesByOne(ctx.input(1));
    if (a && b && wholeResult && (a->size() == b->size() || a->size() == 1 || b->size() == 1))
    {
        // An empty operand (a shape tensor of extent 0, as exporters slice off no entries) makes the result empty,
        // whatever the other holds: there is no entry 0 to broadcast.
        size_t const count = a->empty() || b->empty() ? 0 : std::max(a->size(), b->size());
        std::vector<nvinfer1::IDimensionExpr const*> values;
        for (size_t i = 0; i < count; ++i)
        {
            auto const* value
                = combineValues(ctx.builder(), operation, (*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]);
            if (value == nullptr)
            {
                return true; // not shape arithmetic: an ordinary tensor
            }
            values.push_back(value);
        }
        ctx.output(0).values = std::move(values);
    }
    return true;
}

void ElementWiseLayer::setOperation(nvinfer1::ElementWiseOperation op) noexcept
{
    mutableParams().operation = op;
    network().invalidate();
}

} // namespace kiln::network
