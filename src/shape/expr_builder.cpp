#include "shape/expr_builder.h"

#include "shape/arithmetic.h"
#include "shape/print.h"

#include <limits>
#include <new>
#include <utility>

namespace kiln::shape
{
namespace
{

using nvinfer1::DimensionOperation;
using nvinfer1::IDimensionExpr;

uint64_t mix(uint64_t seed, uint64_t value)
{
    // splitmix64's finaliser over the combined words: cheap, and spreads small integers well.
    uint64_t x = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t kindSeed(ExprKind kind)
{
    return mix(0x6b696c6eULL, static_cast<uint64_t>(kind));
}

//! The order of commutative operands: non-constants first (by structure, then age), constants last by value.
bool comesBefore(Expr const& a, Expr const& b)
{
    if (a.isConstant() != b.isConstant())
    {
        return !a.isConstant();
    }
    if (a.isConstant())
    {
        return a.constantValue() < b.constantValue();
    }
    if (a.structuralHash() != b.structuralHash())
    {
        return a.structuralHash() < b.structuralHash();
    }
    return a.index() < b.index();
}

//! A value op's result is at least, from its operands' (Expr::lowerBound), or Expr::kNoLowerBound: a comparison is
//! at least 0; a sum at least the sum of its operands' bounds; a product of operands at least 0 at least the product
//! of their bounds; a quotient of such at least 0, and by a positive constant the quotient of the dividend's bound;
//! a minimum the smaller bound, a maximum the larger one it knows; c - (a comparison) at least c - 1 (Reshape's
//! 1 - (a == 0)).
int64_t lowerBoundOf(DimensionOperation op, Expr const& first, Expr const& second)
{
    constexpr int64_t kNone = Expr::kNoLowerBound;
    int64_t const a = first.lowerBound();
    int64_t const b = second.lowerBound();
    bool const bothNonNegative = a >= 0 && b >= 0;
    int64_t result = kNone;
    switch (op)
    {
    case DimensionOperation::kEQUAL:
    case DimensionOperation::kLESS: return 0;
    case DimensionOperation::kMAX: return std::max(a, b);
    case DimensionOperation::kMIN: return a == kNone || b == kNone ? kNone : std::min(a, b);
    case DimensionOperation::kSUM:
        return a == kNone || b == kNone || __builtin_add_overflow(a, b, &result) ? kNone : result;
    case DimensionOperation::kPROD: return !bothNonNegative || __builtin_mul_overflow(a, b, &result) ? kNone : result;
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV:
        // By a positive constant the quotient grows with the dividend; by a divisor that may grow, it may reach 0.
        if (a >= 0 && second.isConstant() && b > 0)
        {
            return op == DimensionOperation::kFLOOR_DIV ? a / b : a / b + (a % b != 0 ? 1 : 0);
        }
        return bothNonNegative ? 0 : kNone;
    case DimensionOperation::kSUB:
    {
        bool const minusComparison = second.isOperation()
            && (second.operation() == DimensionOperation::kEQUAL || second.operation() == DimensionOperation::kLESS);
        return first.isConstant() && minusComparison && a > kNone ? a - 1 : kNone;
    }
    }
    return kNone;
}

bool isConstantEqualTo(Expr const& expr, int64_t value)
{
    return expr.isConstant() && expr.constantValue() == value;
}

//! Whether `test` is (a == 0) for this a.
bool isZeroTestOf(Expr const& test, Expr const& a)
{
    return test.isOperation() && test.operation() == DimensionOperation::kEQUAL && &test.first() == &a
        && isConstantEqualTo(test.second(), 0);
}

bool isPositiveConstant(Expr const& expr)
{
    return expr.isConstant() && expr.constantValue() > 0;
}

//! True for op(x, c) with a constant c: the shape (x op c1) op c2 that some rules fold.
bool hasConstantSecond(Expr const& expr, DimensionOperation op)
{
    return expr.isOperation() && expr.operation() == op && expr.second().isConstant();
}

//! Hides where a pointer came from, so that the null test on an address taken from a reference survives
//! optimisation: plugins do pass *nullptr when they chain on a failed operation().
IDimensionExpr const* launder(IDimensionExpr const* pointer) noexcept
{
#if defined(__GNUC__)
    asm("" : "+r"(pointer));
#endif
    return pointer;
}

std::string describeFailure(DimensionOperation op, Expr const& first, Expr const& second, ArithmeticError error)
{
    std::string message = operationName(op);
    message += '(';
    appendExpr(message, first);
    message += ", ";
    appendExpr(message, second);
    message += error == ArithmeticError::kDIVISION_BY_ZERO ? "): division by zero" : "): int64 overflow";
    return message;
}

} // namespace

bool ExprBuilder::NodeKey::operator==(NodeKey const& other) const noexcept
{
    return kind == other.kind && op == other.op && value == other.value && first == other.first
        && second == other.second;
}

size_t ExprBuilder::NodeKeyHash::operator()(NodeKey const& key) const noexcept
{
    return static_cast<size_t>(key.hash);
}

ExprBuilder::NodeKey ExprBuilder::makeKey(
    ExprKind kind, DimensionOperation op, int64_t value, Expr const* first, Expr const* second) noexcept
{
    // From operands' structural hashes rather than their addresses, so that the hash (which becomes the node's
    // structural hash) is the same in every builder.
    uint64_t hash = mix(kindSeed(kind), static_cast<uint64_t>(op));
    hash = mix(hash, static_cast<uint64_t>(value));
    hash = mix(hash, first != nullptr ? first->structuralHash() : 0);
    hash = mix(hash, second != nullptr ? second->structuralHash() : 0);
    return {kind, op, value, first, second, hash};
}

ExprBuilder::ExprBuilder() = default;
ExprBuilder::~ExprBuilder() noexcept = default;

Expr const* ExprBuilder::constant(int64_t value) noexcept
{
    try
    {
        NodeKey const key = makeKey(ExprKind::kCONSTANT, DimensionOperation::kSUM, value, nullptr, nullptr);
        auto const found = mInterned.find(key);
        if (found != mInterned.end())
        {
            return found->second;
        }
        Expr::Fields fields;
        fields.kind = ExprKind::kCONSTANT;
        fields.value = value;
        fields.lowerBound = value;
        fields.hash = key.hash;
        Expr const* node = createNode(fields);
        mInterned.emplace(key, node);
        return node;
    }
    catch (std::bad_alloc const&)
    {
        recordError("out of memory creating a dimension constant");
        return nullptr;
    }
}

Expr const* ExprBuilder::operation(
    DimensionOperation op, IDimensionExpr const& first, IDimensionExpr const& second) noexcept
{
    try
    {
        if (!isValidOperation(op))
        {
            recordError("invalid DimensionOperation value " + std::to_string(static_cast<int32_t>(op)));
            return nullptr;
        }
        Expr const* a = operandOf(launder(&first), "first operand");
        Expr const* b = a != nullptr ? operandOf(launder(&second), "second operand") : nullptr;
        if (a == nullptr || b == nullptr)
        {
            return nullptr;
        }
        return makeOperation(op, a, b);
    }
    catch (std::bad_alloc const&)
    {
        recordError("out of memory creating a dimension expression");
        return nullptr;
    }
}

Expr const* ExprBuilder::apply(DimensionOperation op, Expr const* first, Expr const* second) noexcept
{
    if (first == nullptr || second == nullptr)
    {
        return nullptr;
    }
    return operation(op, *first, *second);
}

Expr const* ExprBuilder::declareSizeTensor(int32_t outputIndex, IDimensionExpr const& opt, IDimensionExpr const& upper)
{
    if (outputIndex < 0)
    {
        recordError("declareSizeTensor: negative output index " + std::to_string(outputIndex));
        return nullptr;
    }
    Expr const* optimum = operandOf(launder(&opt), "declareSizeTensor optimum");
    Expr const* bound = optimum != nullptr ? operandOf(launder(&upper), "declareSizeTensor upper bound") : nullptr;
    if (optimum == nullptr || bound == nullptr)
    {
        return nullptr;
    }
    std::string name = "out" + std::to_string(outputIndex) + ".size";
    if (findSymbol(name) != nullptr)
    {
        name += '#' + std::to_string(symbolCount());
    }
    Expr::Fields fields;
    fields.kind = ExprKind::kSIZE_TENSOR;
    fields.lowerBound = 0; // a count of elements
    fields.symbolId = symbolCount();
    fields.outputIndex = outputIndex;
    fields.first = optimum;
    fields.second = bound;
    fields.name = storeName(name);
    fields.hash = mix(kindSeed(ExprKind::kSIZE_TENSOR), static_cast<uint64_t>(fields.symbolId));
    Expr const* node = createNode(fields);
    mSymbols.push_back(node);
    mSymbolByName.emplace(fields.name, fields.symbolId);
    return node;
}

Expr const* ExprBuilder::newSymbol(std::string_view name)
{
    return makeSymbol(name, false);
}

Expr const* ExprBuilder::newExtent(std::string_view name)
{
    return makeSymbol(name, true);
}

Expr const* ExprBuilder::makeSymbol(std::string_view name, bool extent)
{
    Expr::Fields fields;
    fields.kind = ExprKind::kSYMBOL;
    fields.lowerBound = extent ? 0 : Expr::kNoLowerBound;
    fields.symbolId = symbolCount();
    fields.name = storeName(name);
    fields.hash = mix(kindSeed(ExprKind::kSYMBOL), static_cast<uint64_t>(fields.symbolId));
    Expr const* node = createNode(fields);
    mSymbols.push_back(node);
    mSymbolByName.emplace(fields.name, fields.symbolId); // keeps the first of equal names
    return node;
}

Expr const* ExprBuilder::findSymbol(std::string_view name) const noexcept
{
    auto const found = mSymbolByName.find(name);
    return found != mSymbolByName.end() ? mSymbols[static_cast<size_t>(found->second)] : nullptr;
}

Expr const* ExprBuilder::symbol(SymbolId id) const noexcept
{
    return id >= 0 && id < symbolCount() ? mSymbols[static_cast<size_t>(id)] : nullptr;
}

SymbolId ExprBuilder::symbolCount() const noexcept
{
    return static_cast<SymbolId>(mSymbols.size());
}

Expr const* ExprBuilder::adopt(IDimensionExpr const* expr) noexcept
{
    try
    {
        return operandOf(launder(expr), "expression");
    }
    catch (std::bad_alloc const&)
    {
        recordError("out of memory adopting a dimension expression");
        return nullptr;
    }
}

uint32_t ExprBuilder::nodeCount() const noexcept
{
    return static_cast<uint32_t>(mNodes.size());
}

std::string const& ExprBuilder::lastError() const noexcept
{
    return mLastError;
}

size_t ExprBuilder::errorCount() const noexcept
{
    return mErrorCount;
}

void ExprBuilder::clearErrors() noexcept
{
    mLastError.clear();
    mErrorCount = 0;
}

void ExprBuilder::recordError(std::string message) noexcept
{
    mLastError = std::move(message);
    ++mErrorCount;
}

Expr const* ExprBuilder::operandOf(IDimensionExpr const* expr, char const* role)
{
    if (expr == nullptr)
    {
        recordError(std::string(role) + " is null (did an earlier operation fail?)");
        return nullptr;
    }
    auto const* node = dynamic_cast<Expr const*>(expr);
    if (node != nullptr && &node->owner() == this)
    {
        return node;
    }
    // A constant means the same everywhere; anything else names runtime values of another builder.
    if (expr->isConstant())
    {
        return constant(expr->getConstantValue());
    }
    recordError(std::string(role) + " belongs to another expression builder");
    return nullptr;
}

Expr const* ExprBuilder::makeOperation(DimensionOperation op, Expr const* first, Expr const* second)
{
    if (first->isConstant() && second->isConstant())
    {
        ArithmeticResult const result = applyOperation(op, first->constantValue(), second->constantValue());
        if (!result.ok())
        {
            recordError(describeFailure(op, *first, *second, result.error));
            return nullptr;
        }
        return constant(result.value);
    }
    if (isCommutative(op) && comesBefore(*second, *first))
    {
        std::swap(first, second);
    }
    return simplify(op, first, second);
}

Expr const* ExprBuilder::simplify(DimensionOperation op, Expr const* first, Expr const* second)
{
    // Commutative operands are in canonical order here, so a constant operand of a commutative op is `second`.
    Expr const& x = *first;
    Expr const& y = *second;
    std::optional<Expr const*> simpler;
    switch (op)
    {
    case DimensionOperation::kSUM: simpler = simplifySum(x, y); break;
    case DimensionOperation::kSUB: simpler = simplifyDifference(x, y); break;
    case DimensionOperation::kPROD: simpler = simplifyProduct(x, y); break;
    case DimensionOperation::kMAX:
    case DimensionOperation::kMIN: simpler = simplifyExtremum(op, x, y); break;
    case DimensionOperation::kEQUAL:
    case DimensionOperation::kLESS: simpler = simplifyComparison(op, x, y); break;
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV: simpler = simplifyDivision(op, x, y); break;
    }
    return simpler ? *simpler : internOperation(op, first, second);
}

std::optional<Expr const*> ExprBuilder::foldConstants(DimensionOperation op, Expr const& x, Expr const& y)
{
    if (y.isConstant() && hasConstantSecond(x, op))
    {
        ArithmeticResult const c = applyOperation(op, x.second().constantValue(), y.constantValue());
        if (c.ok())
        {
            return makeOperation(op, &x.first(), constant(c.value));
        }
    }
    return std::nullopt;
}

std::optional<Expr const*> ExprBuilder::simplifySum(Expr const& x, Expr const& y)
{
    if (isConstantEqualTo(y, 0))
    {
        return &x;
    }
    return foldConstants(DimensionOperation::kSUM, x, y);
}

std::optional<Expr const*> ExprBuilder::simplifyDifference(Expr const& x, Expr const& y)
{
    if (&x == &y)
    {
        return constant(0);
    }
    if (y.isConstant() && y.constantValue() != std::numeric_limits<int64_t>::min())
    {
        // One canonical form for "x plus a constant", so that (x + 2) - 3 and x - 1 meet.
        return makeOperation(DimensionOperation::kSUM, &x, constant(-y.constantValue()));
    }
    return std::nullopt;
}

std::optional<Expr const*> ExprBuilder::simplifyProduct(Expr const& x, Expr const& y)
{
    if (isConstantEqualTo(y, 1))
    {
        return &x;
    }
    if (isConstantEqualTo(y, 0))
    {
        return &y;
    }
    // Reshape's rule for a 0 (copy the input's extent) writes a * (a == 0) + a * (1 - (a == 0)) where the requested
    // extent a is the input's: the first product is 0 and the second a for every a.
    for (auto const& [factor, other] : {std::pair{&x, &y}, std::pair{&y, &x}})
    {
        if (isZeroTestOf(*other, *factor))
        {
            return constant(0);
        }
        if (other->isOperation() && other->operation() == DimensionOperation::kSUB
            && isConstantEqualTo(other->first(), 1) && isZeroTestOf(other->second(), *factor))
        {
            return factor;
        }
    }
    return foldConstants(DimensionOperation::kPROD, x, y);
}

std::optional<Expr const*> ExprBuilder::simplifyExtremum(DimensionOperation op, Expr const& x, Expr const& y)
{
    if (&x == &y)
    {
        return &x;
    }
    return foldConstants(op, x, y);
}

std::optional<Expr const*> ExprBuilder::simplifyComparison(DimensionOperation op, Expr const& x, Expr const& y)
{
    if (&x == &y)
    {
        return constant(op == DimensionOperation::kEQUAL ? 1 : 0);
    }
    // A value known to be at least l is not a constant below l, nor below one at most l; it is above one below l.
    bool const equal = op == DimensionOperation::kEQUAL;
    if (x.lowerBound() > Expr::kNoLowerBound && y.isConstant()
        && (equal ? y.constantValue() < x.lowerBound() : y.constantValue() <= x.lowerBound()))
    {
        return constant(0);
    }
    if (y.lowerBound() > Expr::kNoLowerBound && x.isConstant() && x.constantValue() < y.lowerBound())
    {
        return constant(equal ? 0 : 1);
    }
    return std::nullopt;
}

std::optional<Expr const*> ExprBuilder::simplifyDivision(DimensionOperation op, Expr const& x, Expr const& y)
{
    if (isConstantEqualTo(y, 0))
    {
        recordError(describeFailure(op, x, y, ArithmeticError::kDIVISION_BY_ZERO));
        return nullptr;
    }
    if (isConstantEqualTo(y, 1))
    {
        return &x;
    }
    // Rounding twice the same way by positive divisors equals rounding once by their product.
    if (isPositiveConstant(y) && hasConstantSecond(x, op) && isPositiveConstant(x.second()))
    {
        ArithmeticResult const c
            = applyOperation(DimensionOperation::kPROD, x.second().constantValue(), y.constantValue());
        if (c.ok())
        {
            return makeOperation(op, &x.first(), constant(c.value));
        }
    }
    return std::nullopt;
}

Expr const* ExprBuilder::internOperation(DimensionOperation op, Expr const* first, Expr const* second)
{
    NodeKey const key = makeKey(ExprKind::kOPERATION, op, 0, first, second);
    auto const found = mInterned.find(key);
    if (found != mInterned.end())
    {
        return found->second;
    }
    Expr::Fields fields;
    fields.kind = ExprKind::kOPERATION;
    fields.op = op;
    fields.first = first;
    fields.second = second;
    fields.lowerBound = lowerBoundOf(op, *first, *second);
    fields.hash = key.hash;
    Expr const* node = createNode(fields);
    mInterned.emplace(key, node);
    return node;
}

Expr const* ExprBuilder::createNode(Expr::Fields fields)
{
    fields.index = nodeCount();
    fields.owner = this;
    return &mNodes.emplace_back(Expr::CreationKey{}, fields);
}

std::string_view ExprBuilder::storeName(std::string_view name)
{
    return mNames.emplace_back(name);
}

} // namespace kiln::shape
