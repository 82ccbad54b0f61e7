// The readable text of a dimension expression, e.g. "ceil_div(x.d2 + 2, 2)", "max(N, 1)", "x.d0 * x.d1 - 1".
//
// Infix for + - * == <, calls for max, min, floor_div, ceil_div; parentheses only where precedence needs them
// (a right operand of equal precedence is always parenthesised: "a - (b + c)"). Symbols and size tensors print
// their names. Below a few hundred levels of nesting, or past about 4 KB of text (shared subexpressions print once
// per use), the text is cut short with "...".
#pragma once

#include "shape/expr.h"

#include <string>

namespace kiln::shape
{

std::string toString(Expr const& expr);

//! Appends to out (error messages build on it without extra copies).
void appendExpr(std::string& out, Expr const& expr);

} // namespace kiln::shape
