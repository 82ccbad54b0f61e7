// Structural equality of dimension expressions.
#pragma once

#include "shape/expr.h"

namespace kiln::shape
{

//! True when both are built the same way from the same constants, symbols (by SymbolId) and operations. Inside
//! one builder this is pointer equality (hash-consing) except that it is cheap to ask either way; across builders
//! it compares structure, so it suits comparing a plugin's result with an expectation built elsewhere. It does not
//! prove algebraic equality: a + (b + c) and (a + b) + c differ. Size tensors are equal only to themselves.
bool structurallyEqual(Expr const& a, Expr const& b);

//! As above for interface pointers; expressions that are not Kiln's compare equal only as equal constants.
bool structurallyEqual(nvinfer1::IDimensionExpr const& a, nvinfer1::IDimensionExpr const& b);

} // namespace kiln::shape
