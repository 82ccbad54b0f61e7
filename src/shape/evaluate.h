// Values of dimension expressions once their symbols have values (a profile's min, opt or max; the actual input
// shapes at run time).
#pragma once

#include "shape/expr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::shape
{

//! Values of symbols, by SymbolId (ids are dense, so this is two vectors).
class SymbolValues
{
public:
    void set(SymbolId id, int64_t value);
    void unset(SymbolId id) noexcept;
    std::optional<int64_t> get(SymbolId id) const noexcept;
    void clear() noexcept;

private:
    std::vector<int64_t> mValues;
    std::vector<bool> mBound;
};

//! What a size tensor evaluates to.
enum class SizeTensorValue : uint8_t
{
    kBOUND, //!< the value bound to its SymbolId (at run time, the value the layer produced)
    kOPT,   //!< its optimum expression (to plan for the opt profile)
    kUPPER, //!< its upper-bound expression (to size buffers)
};

struct EvalResult
{
    std::optional<int64_t> value;
    std::string error; //!< why there is no value, e.g. "division by zero in floor_div(H, N - 1): N - 1 is 0"

    bool ok() const noexcept
    {
        return value.has_value();
    }
};

//! Evaluates many expressions under one binding, computing each shared subexpression once: shape inference
//! evaluates every layer's output dimensions for one profile through one Evaluator. The cache assumes the
//! SymbolValues do not change; call reset() after changing them. Iterative, so deep expressions are safe.
class Evaluator
{
public:
    explicit Evaluator(SymbolValues const& values, SizeTensorValue sizeTensors = SizeTensorValue::kBOUND) noexcept;

    //! Fails (no value, a message) on an unbound symbol, a division by zero or an int64 overflow.
    EvalResult evaluate(Expr const& expr);
    void reset() noexcept;

private:
    bool computeNode(Expr const& node, std::string& error);
    bool isKnown(Expr const& node) const noexcept;

    SymbolValues const& mValues;
    SizeTensorValue mSizeTensors;
    ExprBuilder const* mOwner{nullptr}; //!< the cache is indexed by node index, which is per builder
    std::vector<int64_t> mCache;
    std::vector<uint8_t> mKnown;
    std::vector<Expr const*> mStack;
};

//! Whether `expr`'s value depends on a size tensor (a data-dependent extent, known only once its layer has run).
bool dependsOnSizeTensor(Expr const& expr);

//! The symbols of the size tensors `expr`'s value depends on (under SizeTensorValue::kBOUND), each once: binding
//! another symbol leaves the value as it was.
std::vector<SymbolId> sizeTensorsIn(Expr const& expr);

//! One expression, no cache kept.
EvalResult evaluate(
    Expr const& expr, SymbolValues const& values, SizeTensorValue sizeTensors = SizeTensorValue::kBOUND);

} // namespace kiln::shape
