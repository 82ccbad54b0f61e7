// The readable text of expressions.
#include "shape/expr_builder.h"
#include "shape/print.h"

#include <gtest/gtest.h>

namespace
{

using kiln::shape::Expr;
using kiln::shape::ExprBuilder;
using kiln::shape::toString;
using nvinfer1::DimensionOperation;

class Printing : public ::testing::Test
{
protected:
    Expr const* op(DimensionOperation operation, Expr const* a, Expr const* b)
    {
        return builder.apply(operation, a, b);
    }
    Expr const* c(int64_t value)
    {
        return builder.constant(value);
    }

    ExprBuilder builder;
    Expr const* x = builder.newSymbol("x.d2");
    Expr const* n = builder.newSymbol("N");
    Expr const* m = builder.newSymbol("M");
};

TEST_F(Printing, AtomsAndCalls)
{
    EXPECT_EQ(toString(*c(42)), "42");
    EXPECT_EQ(toString(*c(-3)), "-3");
    EXPECT_EQ(toString(*x), "x.d2");
    EXPECT_EQ(toString(*op(DimensionOperation::kMAX, n, c(1))), "max(N, 1)");
    EXPECT_EQ(toString(*op(DimensionOperation::kMIN, c(1), n)), "min(N, 1)");
    EXPECT_EQ(toString(*op(DimensionOperation::kCEIL_DIV, op(DimensionOperation::kSUM, x, c(2)), c(2))),
        "ceil_div(x.d2 + 2, 2)");
    EXPECT_EQ(toString(*op(DimensionOperation::kFLOOR_DIV, n, m)), "floor_div(N, M)");
}

TEST_F(Printing, InfixWithParenthesesOnlyWhereNeeded)
{
    Expr const* nm = op(DimensionOperation::kSUB, n, m);
    EXPECT_EQ(toString(*nm), "N - M");
    EXPECT_EQ(toString(*op(DimensionOperation::kSUB, x, c(1))), "x.d2 - 1");
    EXPECT_EQ(toString(*op(DimensionOperation::kPROD, nm, c(2))), "(N - M) * 2");
    EXPECT_EQ(toString(*op(DimensionOperation::kSUB, x, nm)), "x.d2 - (N - M)");
    EXPECT_EQ(toString(*op(DimensionOperation::kSUB, nm, x)), "N - M - x.d2");
    Expr const* x3 = op(DimensionOperation::kPROD, x, c(3));
    EXPECT_EQ(toString(*op(DimensionOperation::kSUB, x3, m)), "x.d2 * 3 - M");
    EXPECT_EQ(toString(*op(DimensionOperation::kSUB, m, x3)), "M - x.d2 * 3");
    EXPECT_EQ(toString(*op(DimensionOperation::kPROD, op(DimensionOperation::kSUM, x, c(-1)), c(3))), "(x.d2 - 1) * 3");
    EXPECT_EQ(toString(*op(DimensionOperation::kEQUAL, nm, c(0))), "N - M == 0");
    EXPECT_EQ(toString(*op(DimensionOperation::kLESS, n, m)), "N < M");
    EXPECT_EQ(toString(*op(DimensionOperation::kSUM, op(DimensionOperation::kLESS, n, m), c(1))), "(N < M) + 1");
}

TEST_F(Printing, VeryDeepExpressionsAreCutShort)
{
    Expr const* deep = x;
    for (int i = 0; i < 2000; ++i)
    {
        deep = op(DimensionOperation::kMAX, deep, n);
        deep = op(DimensionOperation::kMIN, deep, m);
    }
    std::string const text = toString(*deep);
    EXPECT_NE(text.find("..."), std::string::npos);
    EXPECT_EQ(text.rfind("min(", 0), 0U);
}

} // namespace
