#include "shape/evaluate.h"

#include "shape/arithmetic.h"
#include "shape/expr_builder.h"
#include "shape/print.h"

#include <new>
#include <unordered_set>

namespace kiln::shape
{

void SymbolValues::set(SymbolId id, int64_t value)
{
    if (id < 0)
    {
        return;
    }
    auto const slot = static_cast<size_t>(id);
    if (slot >= mValues.size())
    {
        mValues.resize(slot + 1, 0);
        mBound.resize(slot + 1, false);
    }
    mValues[slot] = value;
    mBound[slot] = true;
}

void SymbolValues::unset(SymbolId id) noexcept
{
    if (id >= 0 && static_cast<size_t>(id) < mBound.size())
    {
        mBound[static_cast<size_t>(id)] = false;
    }
}

std::optional<int64_t> SymbolValues::get(SymbolId id) const noexcept
{
    if (id < 0 || static_cast<size_t>(id) >= mBound.size() || !mBound[static_cast<size_t>(id)])
    {
        return std::nullopt;
    }
    return mValues[static_cast<size_t>(id)];
}

void SymbolValues::clear() noexcept
{
    mValues.clear();
    mBound.clear();
}

Evaluator::Evaluator(SymbolValues const& values, SizeTensorValue sizeTensors) noexcept
    : mValues(values)
    , mSizeTensors(sizeTensors)
{
}

void Evaluator::reset() noexcept
{
    mOwner = nullptr;
    mCache.clear();
    mKnown.clear();
}

bool Evaluator::isKnown(Expr const& node) const noexcept
{
    return mKnown[node.index()] != 0;
}

EvalResult Evaluator::evaluate(Expr const& expr)
{
    try
    {
        if (mOwner != &expr.owner())
        {
            reset();
            mOwner = &expr.owner();
        }
        // Nodes created since the last call get cache slots; existing slots stay valid (nodes never change).
        mCache.resize(mOwner->nodeCount(), 0);
        mKnown.resize(mOwner->nodeCount(), 0);

        // Post-order walk with an explicit stack: a node is computed once its operands are known.
        mStack.clear();
        mStack.push_back(&expr);
        std::string error;
        while (!mStack.empty())
        {
            Expr const& node = *mStack.back();
            if (isKnown(node))
            {
                mStack.pop_back();
                continue;
            }
            Expr const* pending[2] = {nullptr, nullptr};
            if (node.isOperation())
            {
                pending[0] = &node.first();
                pending[1] = &node.second();
            }
            else if (node.isSizeTensor() && mSizeTensors != SizeTensorValue::kBOUND)
            {
                pending[0] = mSizeTensors == SizeTensorValue::kOPT ? &node.sizeTensorOpt() : &node.sizeTensorUpper();
            }
            bool waiting = false;
            for (Expr const* operand : pending)
            {
                if (operand != nullptr && !isKnown(*operand))
                {
                    mStack.push_back(operand);
                    waiting = true;
                }
            }
            if (waiting)
            {
                continue;
            }
            if (!computeNode(node, error))
            {
                return {std::nullopt, std::move(error)};
            }
            mStack.pop_back();
        }
        return {mCache[expr.index()], {}};
    }
    catch (std::bad_alloc const&)
    {
        return {std::nullopt, "out of memory evaluating a dimension expression"};
    }
}

bool Evaluator::computeNode(Expr const& node, std::string& error)
{
    int64_t value = 0;
    switch (node.kind())
    {
    case ExprKind::kCONSTANT: value = node.constantValue(); break;
    case ExprKind::kSYMBOL:
    case ExprKind::kSIZE_TENSOR:
        if (node.isSizeTensor() && mSizeTensors != SizeTensorValue::kBOUND)
        {
            value = mCache[mSizeTensors == SizeTensorValue::kOPT ? node.sizeTensorOpt().index()
                                                                 : node.sizeTensorUpper().index()];
            break;
        }
        if (auto const bound = mValues.get(node.symbolId()))
        {
            value = *bound;
            break;
        }
        error = node.isSizeTensor() ? "no value for size tensor '" : "no value for symbol '";
        error += node.symbolName();
        error += "' (id " + std::to_string(node.symbolId()) + ")";
        return false;
    case ExprKind::kOPERATION:
    {
        int64_t const a = mCache[node.first().index()];
        int64_t const b = mCache[node.second().index()];
        ArithmeticResult const result = applyOperation(node.operation(), a, b);
        if (!result.ok())
        {
            bool const byZero = result.error == ArithmeticError::kDIVISION_BY_ZERO;
            error = byZero ? "division by zero in " : "int64 overflow in ";
            appendExpr(error, node);
            if (byZero)
            {
                error += ": ";
                appendExpr(error, node.second());
                error += " is 0";
            }
            else
            {
                error += " with operands " + std::to_string(a) + " and " + std::to_string(b);
            }
            return false;
        }
        value = result.value;
        break;
    }
    }
    mCache[node.index()] = value;
    mKnown[node.index()] = 1;
    return true;
}

bool dependsOnSizeTensor(Expr const& expr)
{
    return !sizeTensorsIn(expr).empty();
}

std::vector<SymbolId> sizeTensorsIn(Expr const& expr)
{
    std::vector<SymbolId> symbols;
    std::vector<Expr const*> pending{&expr};
    std::unordered_set<Expr const*> seen; // shared operands are walked once
    while (!pending.empty())
    {
        Expr const& node = *pending.back();
        pending.pop_back();
        if (!seen.insert(&node).second)
        {
            continue;
        }
        if (node.isSizeTensor())
        {
            symbols.push_back(node.symbolId()); // its bound value, not its optimum or bound expressions
        }
        if (node.isOperation())
        {
            pending.push_back(&node.first());
            pending.push_back(&node.second());
        }
    }
    return symbols;
}

EvalResult evaluate(Expr const& expr, SymbolValues const& values, SizeTensorValue sizeTensors)
{
    return Evaluator(values, sizeTensors).evaluate(expr);
}

} // namespace kiln::shape
