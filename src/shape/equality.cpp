#include "shape/equality.h"

#include <set>
#include <utility>
#include <vector>

namespace kiln::shape
{
namespace
{

//! Compares the node itself; operands are compared by the caller.
bool sameNodeShape(Expr const& a, Expr const& b)
{
    if (a.kind() != b.kind() || a.structuralHash() != b.structuralHash())
    {
        return false;
    }
    switch (a.kind())
    {
    case ExprKind::kCONSTANT: return a.constantValue() == b.constantValue();
    case ExprKind::kSYMBOL: return a.symbolId() == b.symbolId();
    case ExprKind::kSIZE_TENSOR: return &a == &b;
    case ExprKind::kOPERATION: return a.operation() == b.operation();
    }
    return false;
}

} // namespace

bool structurallyEqual(Expr const& a, Expr const& b)
{
    if (&a == &b)
    {
        return true;
    }
    if (&a.owner() == &b.owner())
    {
        return false; // hash-consing makes equal structures one node
    }
    // Across builders: a walk over pairs, each pair visited once, so shared subexpressions cost nothing extra.
    std::vector<std::pair<Expr const*, Expr const*>> pending{{&a, &b}};
    std::set<std::pair<Expr const*, Expr const*>> visited;
    while (!pending.empty())
    {
        auto const [x, y] = pending.back();
        pending.pop_back();
        if (!visited.insert({x, y}).second)
        {
            continue;
        }
        if (!sameNodeShape(*x, *y))
        {
            return false;
        }
        if (x->isOperation())
        {
            pending.emplace_back(&x->first(), &y->first());
            pending.emplace_back(&x->second(), &y->second());
        }
    }
    return true;
}

bool structurallyEqual(nvinfer1::IDimensionExpr const& a, nvinfer1::IDimensionExpr const& b)
{
    auto const* x = dynamic_cast<Expr const*>(&a);
    auto const* y = dynamic_cast<Expr const*>(&b);
    if (x != nullptr && y != nullptr)
    {
        return structurallyEqual(*x, *y);
    }
    return a.isConstant() && b.isConstant() && a.getConstantValue() == b.getConstantValue();
}

} // namespace kiln::shape
