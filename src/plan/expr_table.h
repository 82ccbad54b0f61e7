// Shape expressions in a plan: written as a table of nodes (operands before the
// nodes that use them) and rebuilt into an ExprBuilder when the plan is loaded.
#pragma once

#include "plan/plan_model.h"
#include "shape/expr_builder.h"

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::plan
{

class ExprTableWriter
{
public:
    //! symbolIndex maps a builder symbol to its PlanModel::symbols index (-1 if it has none).
    ExprTableWriter(std::vector<ExprNode>& nodes, std::function<int32_t(shape::SymbolId)> symbolIndex)
        : mNodes(nodes)
        , mSymbolIndex(std::move(symbolIndex))
    {
    }
    //! The node index of expr, adding it and its operands as needed; -1 (with error()) if it cannot be stored.
    int32_t add(shape::Expr const& expr);
    std::string const& error() const
    {
        return mError;
    }

private:
    //! Fills in a size tensor's symbol (its index in PlanModel::symbols, which must exist) and output index.
    bool addSizeTensor(shape::Expr const& expr, ExprNode& node);

    std::vector<ExprNode>& mNodes;
    std::function<int32_t(shape::SymbolId)> mSymbolIndex;
    std::unordered_map<shape::Expr const*, int32_t> mIndex;
    std::string mError;
};

//! Rebuilds the plan's expression table in `builder`: `symbols` gets the builder's symbol of each of the plan's
//! symbols (an extent, never negative, for a tensor's dimension; a value of any sign for a shape tensor's; a size
//! tensor's from its node of the table, which declares it), `out` each node's expression. False with a message if a
//! node cannot be rebuilt.
bool rebuildExprTable(PlanModel const& m, shape::ExprBuilder& builder, std::vector<shape::Expr const*>& symbols,
    std::vector<shape::Expr const*>& out, std::string& error);

} // namespace kiln::plan
