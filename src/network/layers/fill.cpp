#include "network/layers/fill.h"

#include "network/layers/shape_input.h"
#include "core/data_type.h"
#include "core/logging.h"

#include <cmath>

namespace kiln::network
{
namespace
{

using nvinfer1::FillOperation;

//! A kLINSPACE fill of an integer type with at most this many elements has known values (a shape tensor, e.g.
//! ONNX Range feeding a reshape), as a constant layer's small integer weights do.
constexpr int64_t kMaxShapeValues = nvinfer1::Dims::MAX_DIMS;

//! Integer outputs truncate alpha and beta to int64; beyond this magnitude that is undefined.
constexpr double kInt64Limit = 9.2e18;

char const* operationName(FillOperation op)
{
    switch (op)
    {
    case FillOperation::kLINSPACE: return "kLINSPACE";
    case FillOperation::kRANDOM_UNIFORM: return "kRANDOM_UNIFORM";
    case FillOperation::kRANDOM_NORMAL: return "kRANDOM_NORMAL";
    }
    return "unknown";
}

bool outputShape(FillParams const& p, InferenceContext& ctx, std::vector<Dim>& dims)
{
    dims.clear();
    if (ctx.hasInput(0))
    {
        if (!shapeInputValues(ctx, 0, 1, "the fill shape", dims))
        {
            return false;
        }
    }
    else
    {
        if (p.dimensions.nbDims < 0 || p.dimensions.nbDims > nvinfer1::Dims::MAX_DIMS)
        {
            return ctx.fail("the fill dimensions have rank " + std::to_string(p.dimensions.nbDims) + "; must be 0 to "
                + std::to_string(nvinfer1::Dims::MAX_DIMS));
        }
        for (int32_t i = 0; i < p.dimensions.nbDims; ++i)
        {
            dims.push_back(ctx.constant(p.dimensions.d[i]));
        }
    }
    for (size_t i = 0; i < dims.size(); ++i)
    {
        if (dims[i].isConstant() && dims[i].constant() < 0)
        {
            return ctx.fail(
                "fill extent " + std::to_string(i) + " is negative (" + std::to_string(dims[i].constant()) + ")");
        }
    }
    return true;
}

//! Inputs 1 (alpha) and 2 (beta), where given.
bool checkAlphaBetaInputs(FillParams const& p, InferenceContext& ctx, int32_t rank)
{
    for (int32_t index = 1; index <= 2; ++index)
    {
        if (!ctx.hasInput(index))
        {
            continue;
        }
        TensorFacts const& facts = ctx.input(index);
        std::string const which = index == 1 ? "alpha (input 1)" : "beta (input 2)";
        if (!isFloatType(facts.type) && !isIndexType(facts.type))
        {
            return ctx.fail(
                "the fill " + which + " must be FLOAT, HALF, BF16, INT32 or INT64, not " + dataTypeName(facts.type));
        }
        bool const deltas = index == 2 && p.operation == FillOperation::kLINSPACE;
        if (!deltas && facts.dims.nbDims != 0)
        {
            return ctx.fail(std::string("the ") + operationName(p.operation) + " fill " + which + " must be 0-D, not "
                + std::to_string(facts.dims.nbDims) + "-D");
        }
        if (deltas && facts.dims.nbDims != 1)
        {
            return ctx.fail("the kLINSPACE fill beta (input 2) must be 1-D (one delta per output dim), not "
                + std::to_string(facts.dims.nbDims) + "-D");
        }
        Dim const count = deltas ? ctx.dim(2, 0) : Dim();
        if (count.isConstant() && count.constant() != rank)
        {
            return ctx.fail("the kLINSPACE fill beta (input 2) holds " + std::to_string(count.constant())
                + " deltas for an output of rank " + std::to_string(rank));
        }
    }
    if (ctx.hasInput(1) && ctx.hasInput(2) && ctx.input(1).type != ctx.input(2).type)
    {
        return ctx.fail("the fill alpha (input 1) is " + dataTypeName(ctx.input(1).type) + " but beta (input 2) is "
            + dataTypeName(ctx.input(2).type) + "; they must have one type");
    }
    return true;
}

//! The static alpha and beta, where no input replaces them (a value given by an input is checked when it runs).
bool checkStaticAlphaBeta(FillParams const& p, InferenceContext& ctx)
{
    bool const alphaStatic = !ctx.hasInput(1);
    bool const betaStatic = !ctx.hasInput(2);
    if ((alphaStatic && !std::isfinite(p.alpha)) || (betaStatic && !std::isfinite(p.beta)))
    {
        return ctx.fail("the fill alpha and beta must be finite");
    }
    switch (p.operation)
    {
    case FillOperation::kLINSPACE:
        // A static kLINSPACE of rank > 1 is what addFill makes before the application sets beta (input 2), and
        // shapes are inferred when a layer is added: the fill kernels, not inference, reject it if it stays so.
        if (isIndexType(p.toType)
            && ((alphaStatic && std::fabs(p.alpha) > kInt64Limit) || (betaStatic && std::fabs(p.beta) > kInt64Limit)))
        {
            return ctx.fail("the fill alpha and beta are out of the range of " + dataTypeName(p.toType));
        }
        return true;
    case FillOperation::kRANDOM_UNIFORM:
        // Not alpha <= beta: setAlpha(5) before setBeta(10) passes through [5, 1] while other layers may be added
        // (and every layer's shapes inferred); the kernel checks the pair when it runs.
        return true;
    case FillOperation::kRANDOM_NORMAL:
        return !betaStatic || p.beta >= 0.0
            || ctx.fail(
                "the kRANDOM_NORMAL fill's standard deviation beta (" + std::to_string(p.beta) + ") is negative");
    }
    return false;
}

//! alpha + beta * i for i < extent, when the output is a small integer vector and alpha and beta are known.
void propagateValues(FillParams const& p, InferenceContext& ctx, std::vector<Dim> const& dims)
{
    if (p.operation != FillOperation::kLINSPACE || !isIndexType(p.toType) || dims.size() > 1)
    {
        return;
    }
    int64_t const count = dims.empty() ? 1 : (dims[0].isConstant() ? dims[0].constant() : -1);
    if (count < 0 || count > kMaxShapeValues)
    {
        return;
    }
    // Static values (checked to fit int64): integer outputs truncate them, as the kernel does. Inputs: their
    // values, when known.
    Dim alpha;
    Dim beta;
    if (ctx.hasInput(1))
    {
        auto const& a = ctx.input(1).values;
        if (!a || a->size() != 1)
        {
            return;
        }
        alpha = Dim(ctx.builder(), a->front());
    }
    else
    {
        alpha = ctx.constant(static_cast<int64_t>(p.alpha));
    }
    if (ctx.hasInput(2))
    {
        auto const& b = ctx.input(2).values;
        if (!b || b->size() != dims.size())
        {
            return;
        }
        beta = dims.empty() ? ctx.constant(0) : Dim(ctx.builder(), b->front());
    }
    else
    {
        beta = ctx.constant(static_cast<int64_t>(p.beta));
    }
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (int64_t i = 0; i < count; ++i)
    {
        Dim const value = alpha + beta * i;
        if (value.get() == nullptr)
        {
            return;
        }
        values.push_back(value.get());
    }
    ctx.output(0).values = std::move(values);
}

} // namespace

bool FillParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() > 3)
    {
        return ctx.fail("a fill layer takes at most three inputs (shape, alpha, beta)");
    }
    if (static_cast<int32_t>(operation) < 0 || static_cast<int32_t>(operation) >= nvinfer1::EnumMax<FillOperation>())
    {
        return ctx.fail("fill operation " + std::to_string(static_cast<int32_t>(operation)) + " is out of range");
    }
    if (operation == FillOperation::kLINSPACE ? !isFloatType(toType) && !isIndexType(toType) : !isFloatType(toType))
    {
        return ctx.fail(std::string("a ") + operationName(operation) + " fill cannot make " + dataTypeName(toType)
            + " output (it makes FLOAT, HALF, BF16"
            + (operation == FillOperation::kLINSPACE ? ", INT32 or INT64)" : ")"));
    }
    std::vector<Dim> dims;
    if (!outputShape(*this, ctx, dims))
    {
        return false;
    }
    int32_t const rank = static_cast<int32_t>(dims.size());
    if (!checkAlphaBetaInputs(*this, ctx, rank) || !checkStaticAlphaBeta(*this, ctx) || !ctx.setOutput(0, toType, dims))
    {
        return false;
    }
    propagateValues(*this, ctx, dims);
    return true;
}

namespace
{

//! Alpha and beta are held as doubles: an integer beyond 2^53 in magnitude would not survive exactly.
constexpr int64_t kExactInDouble = int64_t{1} << 53;

bool exactInDouble(char const* call, int64_t value)
{
    if (value > kExactInDouble || value < -kExactInDouble)
    {
        logError(std::string("IFillLayer::") + call + ": " + std::to_string(value)
            + " is beyond 2^53 in magnitude; Kiln holds fill values as doubles and would not keep it exactly");
        return false;
    }
    return true;
}

} // namespace

void FillLayer::setAlphaInt64(int64_t alpha) noexcept
{
    if (exactInDouble("setAlphaInt64", alpha))
    {
        setAlpha(static_cast<double>(alpha));
        mAlphaBetaInt64 = true;
    }
}

int64_t FillLayer::getAlphaInt64() const noexcept
{
    return getInput(1) != nullptr ? -1 : static_cast<int64_t>(typedParams().alpha);
}

void FillLayer::setBetaInt64(int64_t beta) noexcept
{
    if (exactInDouble("setBetaInt64", beta))
    {
        setBeta(static_cast<double>(beta));
        mAlphaBetaInt64 = true;
    }
}

int64_t FillLayer::getBetaInt64() const noexcept
{
    return getInput(2) != nullptr ? -1 : static_cast<int64_t>(typedParams().beta);
}

} // namespace kiln::network
