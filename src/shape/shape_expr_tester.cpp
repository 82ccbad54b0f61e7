// kiln::ShapeExprTester (include/kiln/ShapeExprTesting.h): the internal ExprBuilder with a name table.
#include <kiln/ShapeExprTesting.h>

#include "shape/evaluate.h"
#include "shape/expr_builder.h"
#include "shape/print.h"

namespace kiln
{

class ShapeExprTester::Impl
{
public:
    shape::ExprBuilder builder;

    //! expr as a node of our builder, or nullptr with the reason recorded.
    shape::Expr const* ours(nvinfer1::IDimensionExpr const& expr)
    {
        auto const* node = dynamic_cast<shape::Expr const*>(&expr);
        if (node != nullptr && &node->owner() == &builder)
        {
            return node;
        }
        if (expr.isConstant())
        {
            return builder.constant(expr.getConstantValue());
        }
        builder.recordError("the expression belongs to another expression builder");
        return nullptr;
    }

    shape::SymbolValues bind(std::map<std::string, int64_t> const& values) const
    {
        shape::SymbolValues bound;
        for (auto const& [name, value] : values)
        {
            if (shape::Expr const* symbol = builder.findSymbol(name))
            {
                bound.set(symbol->symbolId(), value);
            }
        }
        return bound;
    }

    std::optional<int64_t> evaluate(nvinfer1::IDimensionExpr const& expr, shape::Evaluator& evaluator)
    {
        shape::Expr const* node = ours(expr);
        if (node == nullptr)
        {
            return std::nullopt;
        }
        shape::EvalResult result = evaluator.evaluate(*node);
        if (!result.ok())
        {
            builder.recordError(std::move(result.error));
        }
        return result.value;
    }

    nvinfer1::DimsExprs invalidDims(std::string reason)
    {
        builder.recordError(std::move(reason));
        nvinfer1::DimsExprs none{};
        none.nbDims = -1;
        return none;
    }
};

ShapeExprTester::ShapeExprTester()
    : mImpl(std::make_unique<Impl>())
{
}

ShapeExprTester::~ShapeExprTester() = default;

nvinfer1::IExprBuilder& ShapeExprTester::builder()
{
    return mImpl->builder;
}

nvinfer1::IDimensionExpr const* ShapeExprTester::symbol(std::string const& name)
{
    shape::Expr const* existing = mImpl->builder.findSymbol(name);
    return existing != nullptr ? existing : mImpl->builder.newSymbol(name);
}

nvinfer1::DimsExprs ShapeExprTester::dims(nvinfer1::Dims const& concrete)
{
    if (concrete.nbDims < 0 || concrete.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return mImpl->invalidDims("dims: nbDims " + std::to_string(concrete.nbDims) + " is outside 0.."
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::DimsExprs result{};
    result.nbDims = concrete.nbDims;
    for (int32_t i = 0; i < concrete.nbDims; ++i)
    {
        result.d[i] = mImpl->builder.constant(concrete.d[i]);
    }
    return result;
}

nvinfer1::DimsExprs ShapeExprTester::dims(std::initializer_list<DimArg> dims)
{
    if (dims.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return mImpl->invalidDims("dims: " + std::to_string(dims.size()) + " dimensions, more than "
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::DimsExprs result{};
    result.nbDims = static_cast<int32_t>(dims.size());
    int32_t i = 0;
    for (DimArg const& dim : dims)
    {
        result.d[i++] = dim.isSymbol() ? symbol(dim.symbol()) : mImpl->builder.constant(dim.extent());
    }
    return result;
}

std::optional<int64_t> ShapeExprTester::evaluate(
    nvinfer1::IDimensionExpr const& e, std::map<std::string, int64_t> const& values) const
{
    shape::SymbolValues const bound = mImpl->bind(values);
    shape::Evaluator evaluator(bound);
    return mImpl->evaluate(e, evaluator);
}

std::optional<nvinfer1::Dims> ShapeExprTester::evaluate(
    nvinfer1::DimsExprs const& e, std::map<std::string, int64_t> const& values) const
{
    if (e.nbDims < 0 || e.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        mImpl->builder.recordError("evaluate: nbDims " + std::to_string(e.nbDims) + " is outside 0.."
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
        return std::nullopt;
    }
    shape::SymbolValues const bound = mImpl->bind(values);
    shape::Evaluator evaluator(bound);
    nvinfer1::Dims result{};
    result.nbDims = e.nbDims;
    for (int32_t i = 0; i < e.nbDims; ++i)
    {
        if (e.d[i] == nullptr)
        {
            mImpl->builder.recordError("evaluate: dimension " + std::to_string(i) + " is null");
            return std::nullopt;
        }
        std::optional<int64_t> const value = mImpl->evaluate(*e.d[i], evaluator);
        if (!value)
        {
            mImpl->builder.recordError("dimension " + std::to_string(i) + ": " + mImpl->builder.lastError());
            return std::nullopt;
        }
        result.d[i] = *value;
    }
    return result;
}

std::string ShapeExprTester::toString(nvinfer1::IDimensionExpr const& e) const
{
    auto const* node = dynamic_cast<shape::Expr const*>(&e);
    if (node != nullptr)
    {
        return shape::toString(*node);
    }
    return e.isConstant() ? std::to_string(e.getConstantValue()) : std::string("<foreign expression>");
}

std::string ShapeExprTester::lastError() const
{
    return mImpl->builder.lastError();
}

} // namespace kiln
