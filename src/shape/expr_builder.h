// ExprBuilder: Kiln's nvinfer1::IExprBuilder. Shape inference gives one to every layer's shape function (and to
// plugins' getOutputDimensions / getOutputShapes) and evaluates the results for each profile's min/opt/max.
//
// Semantics, exact for all int64 values:
// - kSUM, kPROD, kSUB, kMAX, kMIN: the usual integer results.
// - kEQUAL, kLESS: 1 when first == second (first < second), else 0.
// - kFLOOR_DIV rounds toward negative infinity, kCEIL_DIV toward positive infinity, for negative operands too:
//   floor_div(-7, 2) == -4, ceil_div(-7, 2) == -3, floor_div(7, -2) == -4, ceil_div(7, -2) == -3.
// - A result that does not fit in int64, or a division by zero, is an error, never a wrapped value.
//
// Errors: operation() and declareSizeTensor() return nullptr and record a message (lastError()) for
// - an op value outside the nine DimensionOperation values;
// - constant operands whose result divides by zero or overflows (e.g. "floor_div(7, 0): division by zero");
// - a constant divisor 0 with a symbolic dividend (the division can only fail);
// - an operand that is null (a failed earlier operation), or that belongs to another builder and is not constant;
// - declareSizeTensor with a negative output index.
// Symbolic expressions that fail only for some values fail when evaluated (shape/evaluate.h).
//
// Simplification (every rewrite keeps the value for all symbol values where the original has one):
// constants fold; commutative operands are put in a canonical order (constants last), so a + b and b + a are one
// node; x + 0, x - 0, x * 1, floor_div(x, 1), ceil_div(x, 1) -> x; x * 0 -> 0; x - x -> 0; max(x, x), min(x, x)
// -> x; (x == x) -> 1; (x < x) -> 0; x - c -> x + (-c); (x + c1) + c2 -> x + (c1 + c2); (x * c1) * c2 -> x * (c1 *
// c2); max(max(x, c1), c2) -> max(x, max(c1, c2)) (min alike); floor_div(floor_div(x, c1), c2) -> floor_div(x, c1 *
// c2) for c1, c2 > 0 (ceil_div alike). For x known to be at least l (Expr::lowerBound: extents and size tensors are
// at least 0, and sums, products, quotients and extrema of bounded values are bounded), (x == c) -> 0 for c below
// l, (x < c) -> 0 for c at most l, (c < x) -> 1 for c below l; and a * (a == 0) -> 0, a * (1 - (a == 0)) -> a:
// ONNX Reshape's rules for a -1 or a 0 among requested extents computed from the input's, which otherwise grew
// torchvision's ViT-B/16 output extent to 1076 operations. A rewrite may remove an intermediate overflow, or an error
// inside an operand that the result no longer depends on (x * 0, x - x); it never adds one.
#pragma once

#include "shape/expr.h"

#include <NvInferRuntime.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::shape
{

class ExprBuilder final : public nvinfer1::IExprBuilder
{
public:
    ExprBuilder();
    ~ExprBuilder() noexcept override;

    // nvinfer1::IExprBuilder (covariant returns: Kiln's own callers get Expr nodes directly)
    Expr const* constant(int64_t value) noexcept override;
    Expr const* operation(nvinfer1::DimensionOperation op, nvinfer1::IDimensionExpr const& first,
        nvinfer1::IDimensionExpr const& second) noexcept override;
    //! A new runtime value each call (two layers' size tensors differ even with equal bounds); its symbol is
    //! named "out<outputIndex>.size".
    Expr const* declareSizeTensor(
        int32_t outputIndex, nvinfer1::IDimensionExpr const& opt, nvinfer1::IDimensionExpr const& upper) override;

    //! A new runtime value with the next SymbolId, of any sign (a shape tensor's value). Names are labels for
    //! printing and findSymbol; they need not be unique.
    Expr const* newSymbol(std::string_view name);
    //! newSymbol for a tensor's extent, which is never negative: comparisons with negative constants fold.
    Expr const* newExtent(std::string_view name);
    //! The first symbol or size tensor of that name, else nullptr.
    Expr const* findSymbol(std::string_view name) const noexcept;
    //! The symbol or size tensor with that id, else nullptr.
    Expr const* symbol(SymbolId id) const noexcept;
    //! Ids are 0 .. symbolCount() - 1.
    SymbolId symbolCount() const noexcept;

    //! operation() for Kiln's shape functions: a null operand gives nullptr without a new error, so a shape
    //! function can chain calls and check once at the end.
    Expr const* apply(nvinfer1::DimensionOperation op, Expr const* first, Expr const* second) noexcept;
    //! The node of this builder for an expression a plugin returned: itself if it is ours, a constant of ours for
    //! a constant of another builder, else nullptr and an error.
    Expr const* adopt(nvinfer1::IDimensionExpr const* expr) noexcept;

    //! Nodes created so far (all kinds); node indices are 0 .. nodeCount() - 1.
    uint32_t nodeCount() const noexcept;

    //! The message of the most recent failure; empty if none since construction or clearErrors().
    std::string const& lastError() const noexcept;
    //! Failures since construction or clearErrors(): lets shape inference notice a failure that a plugin ignored.
    size_t errorCount() const noexcept;
    void clearErrors() noexcept;
    void recordError(std::string message) noexcept;

private:
    //! What makes a constant or an operation node unique. The hash is computed once, when the key is made, so
    //! that table look-ups never touch the operand nodes.
    struct NodeKey
    {
        ExprKind kind;
        nvinfer1::DimensionOperation op;
        int64_t value;
        Expr const* first;
        Expr const* second;
        uint64_t hash;
        bool operator==(NodeKey const& other) const noexcept;
    };
    struct NodeKeyHash
    {
        size_t operator()(NodeKey const& key) const noexcept;
    };

    static NodeKey makeKey(
        ExprKind kind, nvinfer1::DimensionOperation op, int64_t value, Expr const* first, Expr const* second) noexcept;
    Expr const* makeOperation(nvinfer1::DimensionOperation op, Expr const* first, Expr const* second);
    Expr const* simplify(nvinfer1::DimensionOperation op, Expr const* first, Expr const* second);
    // simplify's rules for each operation: the simpler expression (nullptr after recording an error), or none
    // when no rule applies to x op y.
    std::optional<Expr const*> simplifySum(Expr const& x, Expr const& y);
    std::optional<Expr const*> simplifyDifference(Expr const& x, Expr const& y);
    std::optional<Expr const*> simplifyProduct(Expr const& x, Expr const& y);
    std::optional<Expr const*> simplifyExtremum(nvinfer1::DimensionOperation op, Expr const& x, Expr const& y);
    std::optional<Expr const*> simplifyComparison(nvinfer1::DimensionOperation op, Expr const& x, Expr const& y);
    std::optional<Expr const*> simplifyDivision(nvinfer1::DimensionOperation op, Expr const& x, Expr const& y);
    //! (a op c1) op c2 as a op (c1 op c2), for an associative op and constants c1 and c2.
    std::optional<Expr const*> foldConstants(nvinfer1::DimensionOperation op, Expr const& x, Expr const& y);
    Expr const* internOperation(nvinfer1::DimensionOperation op, Expr const* first, Expr const* second);
    Expr const* makeSymbol(std::string_view name, bool extent);
    Expr const* createNode(Expr::Fields fields);
    Expr const* operandOf(nvinfer1::IDimensionExpr const* expr, char const* role);
    std::string_view storeName(std::string_view name);

    std::deque<Expr> mNodes; //!< the arena: a deque never moves what it holds
    std::unordered_map<NodeKey, Expr const*, NodeKeyHash> mInterned;
    std::vector<Expr const*> mSymbols; //!< by SymbolId
    std::deque<std::string> mNames;    //!< storage behind the nodes' string_views
    std::unordered_map<std::string_view, SymbolId> mSymbolByName;
    std::string mLastError;
    size_t mErrorCount{0};
};

} // namespace kiln::shape
