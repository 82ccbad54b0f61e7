#include "plan/expr_table.h"

namespace kiln::plan
{

int32_t ExprTableWriter::add(shape::Expr const& root)
{
    // Iterative post-order walk: operands get their indices before the node that uses them.
    std::vector<std::pair<shape::Expr const*, bool>> stack{{&root, false}};
    while (!stack.empty())
    {
        auto [expr, operandsDone] = stack.back();
        stack.pop_back();
        if (mIndex.count(expr) != 0)
        {
            continue;
        }
        ExprNode node;
        node.kind = static_cast<uint8_t>(expr->kind());
        switch (expr->kind())
        {
        case shape::ExprKind::kCONSTANT: node.value = expr->constantValue(); break;
        case shape::ExprKind::kSYMBOL:
            node.symbol = mSymbolIndex(expr->symbolId());
            if (node.symbol < 0)
            {
                mError = "the runtime dimension \"" + std::string(expr->symbolName())
                    + "\" is not a dimension of a network input";
                return -1;
            }
            break;
        case shape::ExprKind::kOPERATION:
        case shape::ExprKind::kSIZE_TENSOR: // its operands are its optimum and upper bound
            if (!operandsDone)
            {
                stack.push_back({expr, true});
                stack.push_back({&expr->second(), false});
                stack.push_back({&expr->first(), false});
                continue;
            }
            node.op = expr->isOperation() ? expr->operation() : nvinfer1::DimensionOperation::kSUM;
            node.first = mIndex.at(&expr->first());
            node.second = mIndex.at(&expr->second());
            if (expr->isSizeTensor() && !addSizeTensor(*expr, node))
            {
                return -1;
            }
            break;
        }
        mIndex[expr] = static_cast<int32_t>(mNodes.size());
        mNodes.push_back(node);
    }
    return mIndex.at(&root);
}

bool ExprTableWriter::addSizeTensor(shape::Expr const& expr, ExprNode& node)
{
    node.symbol = mSymbolIndex(expr.symbolId());
    node.value = expr.sizeTensorOutputIndex();
    if (node.symbol < 0)
    {
        mError = "the size tensor \"" + std::string(expr.symbolName()) + "\" is not an output of a layer";
        return false;
    }
    return true;
}

namespace
{

//! The builder's symbol of each of the plan's symbols, in order; nullptr for a size tensor, which its node declares.
std::vector<shape::Expr const*> rebuildSymbols(PlanModel const& m, shape::ExprBuilder& builder)
{
    std::vector<shape::Expr const*> symbols;
    for (SymbolRecord const& symbol : m.symbols)
    {
        std::string const name = m.tensors[static_cast<size_t>(symbol.tensor)].name;
        switch (symbol.kind)
        {
        case SymbolRecord::Kind::kDIMENSION:
            symbols.push_back(builder.newExtent(name + ".d" + std::to_string(symbol.axis)));
            break;
        case SymbolRecord::Kind::kVALUE:
            symbols.push_back(builder.newSymbol(name + ".v" + std::to_string(symbol.axis)));
            break;
        case SymbolRecord::Kind::kSIZE: symbols.push_back(nullptr); break;
        }
    }
    return symbols;
}

} // namespace

bool rebuildExprTable(PlanModel const& m, shape::ExprBuilder& builder, std::vector<shape::Expr const*>& symbols,
    std::vector<shape::Expr const*>& out, std::string& error)
{
    symbols = rebuildSymbols(m, builder);
    std::vector<ExprNode> const& nodes = m.exprs;
    out.assign(nodes.size(), nullptr);
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        ExprNode const& node = nodes[i];
        switch (static_cast<shape::ExprKind>(node.kind))
        {
        case shape::ExprKind::kCONSTANT: out[i] = builder.constant(node.value); break;
        case shape::ExprKind::kSYMBOL:
            out[i] = node.symbol >= 0 && static_cast<size_t>(node.symbol) < symbols.size() ? symbols[node.symbol]
                                                                                           : nullptr;
            break;
        case shape::ExprKind::kOPERATION:
            // Indices were validated to refer to earlier nodes.
            out[i] = builder.apply(node.op, out[node.first], out[node.second]);
            break;
        case shape::ExprKind::kSIZE_TENSOR:
            // The plan's validation checked that one node declares each size symbol, and the symbol's kind.
            out[i] = builder.declareSizeTensor(static_cast<int32_t>(node.value), *out[node.first], *out[node.second]);
            symbols[node.symbol] = out[i];
            break;
        default: out[i] = nullptr; break;
        }
        if (out[i] == nullptr)
        {
            error = "shape expression " + std::to_string(i) + " cannot be rebuilt"
                + (builder.lastError().empty() ? std::string() : ": " + builder.lastError());
            return false;
        }
    }
    return true;
}

} // namespace kiln::plan
