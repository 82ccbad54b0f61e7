#include "network/shape_tensor_inputs.h"

#include "network/network.h"

#include <unordered_map>

namespace kiln::network
{
namespace
{

//! Adds to `found` the inputs that own a value symbol `expr` refers to.
void collectOwners(shape::Expr const& expr, std::unordered_map<shape::SymbolId, Tensor const*> const& owners,
    std::unordered_set<Tensor const*>& found, std::unordered_set<shape::Expr const*>& visited)
{
    if (!visited.insert(&expr).second)
    {
        return;
    }
    if (expr.kind() == shape::ExprKind::kSYMBOL)
    {
        if (auto const owner = owners.find(expr.symbolId()); owner != owners.end())
        {
            found.insert(owner->second);
        }
    }
    if (expr.kind() == shape::ExprKind::kOPERATION || expr.kind() == shape::ExprKind::kSIZE_TENSOR)
    {
        collectOwners(expr.first(), owners, found, visited);
        collectOwners(expr.second(), owners, found, visited);
    }
}

} // namespace

std::unordered_set<Tensor const*> shapeTensorInputs(
    NetworkFacts const& facts, std::vector<Tensor const*> const& tensors)
{
    std::unordered_map<shape::SymbolId, Tensor const*> owners;
    for (auto const& [input, symbols] : facts.inputValueSymbols)
    {
        for (shape::Expr const* symbol : symbols)
        {
            owners[symbol->symbolId()] = input;
        }
    }
    std::unordered_set<Tensor const*> found;
    std::unordered_set<shape::Expr const*> visited; // shared operands are walked once
    for (Tensor const* tensor : tensors)
    {
        auto const known = facts.tensors.find(tensor);
        if (owners.empty() || known == facts.tensors.end())
        {
            continue;
        }
        nvinfer1::DimsExprs const& dims = known->second.dims;
        for (int32_t axis = 0; axis < dims.nbDims; ++axis)
        {
            collectOwners(*facts.exprs->adopt(dims.d[axis]), owners, found, visited);
        }
    }
    return found;
}

} // namespace kiln::network
