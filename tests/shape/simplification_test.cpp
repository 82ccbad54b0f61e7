// Identities, canonical order and hash-consing: equal shapes are one node.
#include "shape/equality.h"
#include "shape/evaluate.h"
#include "shape/expr_builder.h"
#include "shape/print.h"

#include <gtest/gtest.h>

namespace
{

using kiln::shape::Expr;
using kiln::shape::ExprBuilder;
using nvinfer1::DimensionOperation;

class Simplification : public ::testing::Test
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
    Expr const* x = builder.newSymbol("x");
    Expr const* y = builder.newSymbol("y");
    Expr const* extent = builder.newExtent("t.d0");
};

TEST_F(Simplification, NeutralAndAbsorbingConstants)
{
    EXPECT_EQ(op(DimensionOperation::kSUM, x, c(0)), x);
    EXPECT_EQ(op(DimensionOperation::kSUM, c(0), x), x);
    EXPECT_EQ(op(DimensionOperation::kSUB, x, c(0)), x);
    EXPECT_EQ(op(DimensionOperation::kPROD, x, c(1)), x);
    EXPECT_EQ(op(DimensionOperation::kPROD, c(1), x), x);
    EXPECT_EQ(op(DimensionOperation::kPROD, x, c(0)), c(0));
    EXPECT_EQ(op(DimensionOperation::kPROD, c(0), x), c(0));
    EXPECT_EQ(op(DimensionOperation::kFLOOR_DIV, x, c(1)), x);
    EXPECT_EQ(op(DimensionOperation::kCEIL_DIV, x, c(1)), x);
}

TEST_F(Simplification, SameOperandOnBothSides)
{
    EXPECT_EQ(op(DimensionOperation::kMAX, x, x), x);
    EXPECT_EQ(op(DimensionOperation::kMIN, x, x), x);
    EXPECT_EQ(op(DimensionOperation::kSUB, x, x), c(0));
    EXPECT_EQ(op(DimensionOperation::kEQUAL, x, x), c(1));
    EXPECT_EQ(op(DimensionOperation::kLESS, x, x), c(0));
    Expr const* sum = op(DimensionOperation::kSUM, x, y);
    EXPECT_EQ(op(DimensionOperation::kSUB, sum, op(DimensionOperation::kSUM, y, x)), c(0));
}

TEST_F(Simplification, IdenticalExpressionsAreOneNode)
{
    Expr const* first = op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kSUM, x, c(2)), c(3));
    Expr const* second = op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kSUM, x, c(2)), c(3));
    EXPECT_EQ(first, second);
    uint32_t const nodes = builder.nodeCount();
    EXPECT_EQ(op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kSUM, x, c(2)), c(3)), first);
    EXPECT_EQ(builder.nodeCount(), nodes); // nothing new was made
    EXPECT_NE(op(DimensionOperation::kCEIL_DIV, op(DimensionOperation::kSUM, x, c(2)), c(3)), first);
}

TEST_F(Simplification, CommutativeOperandsMeetInOneOrder)
{
    for (DimensionOperation commutative : {DimensionOperation::kSUM, DimensionOperation::kPROD,
             DimensionOperation::kMAX, DimensionOperation::kMIN, DimensionOperation::kEQUAL})
    {
        EXPECT_EQ(op(commutative, x, y), op(commutative, y, x));
        EXPECT_EQ(op(commutative, x, c(5)), op(commutative, c(5), x));
    }
    EXPECT_NE(op(DimensionOperation::kSUB, x, y), op(DimensionOperation::kSUB, y, x));
    EXPECT_NE(op(DimensionOperation::kLESS, x, y), op(DimensionOperation::kLESS, y, x));
    EXPECT_NE(op(DimensionOperation::kFLOOR_DIV, x, y), op(DimensionOperation::kFLOOR_DIV, y, x));
}

TEST_F(Simplification, ConstantChainsFold)
{
    // (x + 2) - 3 and x - 1 and x + (-1) are one node.
    Expr const* viaTwoSteps = op(DimensionOperation::kSUB, op(DimensionOperation::kSUM, x, c(2)), c(3));
    EXPECT_EQ(viaTwoSteps, op(DimensionOperation::kSUB, x, c(1)));
    EXPECT_EQ(viaTwoSteps, op(DimensionOperation::kSUM, x, c(-1)));
    // (x + 3) - 3 is x.
    EXPECT_EQ(op(DimensionOperation::kSUB, op(DimensionOperation::kSUM, x, c(3)), c(3)), x);
    EXPECT_EQ(op(DimensionOperation::kPROD, op(DimensionOperation::kPROD, x, c(2)), c(3)),
        op(DimensionOperation::kPROD, c(6), x));
    EXPECT_EQ(op(DimensionOperation::kMAX, op(DimensionOperation::kMAX, x, c(2)), c(7)),
        op(DimensionOperation::kMAX, x, c(7)));
    EXPECT_EQ(op(DimensionOperation::kMIN, op(DimensionOperation::kMIN, x, c(2)), c(7)),
        op(DimensionOperation::kMIN, x, c(2)));
    EXPECT_EQ(op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kFLOOR_DIV, x, c(2)), c(3)),
        op(DimensionOperation::kFLOOR_DIV, x, c(6)));
    EXPECT_EQ(op(DimensionOperation::kCEIL_DIV, op(DimensionOperation::kCEIL_DIV, x, c(2)), c(3)),
        op(DimensionOperation::kCEIL_DIV, x, c(6)));
    // Negative divisors do not compose that way; the nested form stays.
    EXPECT_NE(op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kFLOOR_DIV, x, c(-2)), c(3)),
        op(DimensionOperation::kFLOOR_DIV, x, c(-6)));
}

TEST_F(Simplification, FoldedChainsKeepTheirValues)
{
    // The rewritten forms must agree with the operations done one at a time, for negative values too.
    Expr const* floorTwice = op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kFLOOR_DIV, x, c(2)), c(3));
    Expr const* ceilTwice = op(DimensionOperation::kCEIL_DIV, op(DimensionOperation::kCEIL_DIV, x, c(2)), c(3));
    // Hand-computed: floor(floor(v/2)/3) and ceil(ceil(v/2)/3).
    struct Case
    {
        int64_t v;
        int64_t floorTwice;
        int64_t ceilTwice;
    };
    for (Case const& tc : {Case{13, 2, 3}, Case{12, 2, 2}, Case{-13, -3, -2}, Case{-1, -1, 0}, Case{0, 0, 0}})
    {
        kiln::shape::SymbolValues values;
        values.set(x->symbolId(), tc.v);
        EXPECT_EQ(kiln::shape::evaluate(*floorTwice, values).value, tc.floorTwice) << tc.v;
        EXPECT_EQ(kiln::shape::evaluate(*ceilTwice, values).value, tc.ceilTwice) << tc.v;
    }
}

TEST_F(Simplification, ConstantDivisorZeroFailsAtOnce)
{
    EXPECT_EQ(op(DimensionOperation::kFLOOR_DIV, x, c(0)), nullptr);
    EXPECT_NE(builder.lastError().find("floor_div(x, 0): division by zero"), std::string::npos) << builder.lastError();
    EXPECT_EQ(op(DimensionOperation::kCEIL_DIV, x, c(0)), nullptr);
}

TEST_F(Simplification, ComparisonsDecidedByLowerBounds)
{
    auto const eq = [&](Expr const* a, int64_t value) { return op(DimensionOperation::kEQUAL, a, c(value)); };
    auto const less = [&](Expr const* a, Expr const* b) { return op(DimensionOperation::kLESS, a, b); };
    // An extent is at least 0: never -1, never below 0, always above -1.
    EXPECT_EQ(eq(extent, -1), c(0));
    EXPECT_EQ(less(extent, c(0)), c(0));
    EXPECT_EQ(less(c(-1), extent), c(1));
    EXPECT_NE(eq(extent, 0), c(0)) << "an extent may be 0";
    EXPECT_NE(less(c(0), extent), c(1));
    // A value of any sign (a shape tensor's) decides nothing.
    EXPECT_NE(eq(x, -1), c(0));
    EXPECT_NE(less(x, c(0)), c(0));
    // Bounds through operations: ONNX Reshape's -1 test on an extent computed from extents.
    Expr const* half = op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kSUM, extent, extent), c(2));
    EXPECT_EQ(eq(half, -1), c(0));
    Expr const* atLeastOne = op(DimensionOperation::kMAX, extent, c(1));
    EXPECT_EQ(eq(atLeastOne, 0), c(0)) << "max(t, 1) is never 0";
    EXPECT_EQ(eq(op(DimensionOperation::kPROD, atLeastOne, c(768)), 0), c(0));
    EXPECT_EQ(
        eq(op(DimensionOperation::kFLOOR_DIV, op(DimensionOperation::kPROD, atLeastOne, c(768)), c(256)), 0), c(0))
        << "768 max(t, 1) / 256 is at least 3";
    EXPECT_NE(eq(op(DimensionOperation::kFLOOR_DIV, atLeastOne, extent), 0), c(0)) << "a divisor that may grow";
    EXPECT_NE(eq(op(DimensionOperation::kSUB, extent, c(1)), -1), c(0)) << "t - 1 may be -1";
    Expr const* notZero = op(DimensionOperation::kSUB, c(1), eq(x, 0));
    EXPECT_EQ(eq(notZero, -1), c(0)) << "1 - (a comparison) is 0 or 1";
}

TEST_F(Simplification, ReshapesZeroPlaceholderOfTheInputsOwnExtent)
{
    // Reshape writes a requested extent a as (a == 0) * input + (1 - (a == 0)) * a; where a is the input's extent:
    Expr const* isZero = op(DimensionOperation::kEQUAL, x, c(0));
    EXPECT_EQ(op(DimensionOperation::kPROD, isZero, x), c(0));
    EXPECT_EQ(op(DimensionOperation::kPROD, x, isZero), c(0));
    EXPECT_EQ(op(DimensionOperation::kPROD, op(DimensionOperation::kSUB, c(1), isZero), x), x);
    EXPECT_EQ(op(DimensionOperation::kPROD, x, op(DimensionOperation::kSUB, c(1), isZero)), x);
    // Not for another operand.
    EXPECT_NE(op(DimensionOperation::kPROD, isZero, y), c(0));
    EXPECT_NE(op(DimensionOperation::kPROD, op(DimensionOperation::kSUB, c(1), isZero), y), y);
    // And the identities hold: a * (a == 0) is 0 and a * (1 - (a == 0)) is a for every a, 0 included.
    for (int64_t value : {-3, -1, 0, 1, 7})
    {
        Expr const* a = c(value);
        Expr const* test = op(DimensionOperation::kEQUAL, a, c(0));
        EXPECT_EQ(op(DimensionOperation::kPROD, a, test), c(0));
        EXPECT_EQ(op(DimensionOperation::kPROD, a, op(DimensionOperation::kSUB, c(1), test)), a);
    }
}

TEST_F(Simplification, NullOperandsPropagateThroughApply)
{
    size_t const errors = builder.errorCount();
    EXPECT_EQ(op(DimensionOperation::kSUM, nullptr, x), nullptr);
    EXPECT_EQ(builder.errorCount(), errors);
}

TEST_F(Simplification, OperandsOfAnotherBuilder)
{
    ExprBuilder other;
    // A constant means the same in every builder.
    Expr const* sum = builder.operation(DimensionOperation::kSUM, *x, *other.constant(4));
    ASSERT_NE(sum, nullptr);
    EXPECT_EQ(sum, op(DimensionOperation::kSUM, x, c(4)));
    // A symbol of another builder does not.
    EXPECT_EQ(builder.operation(DimensionOperation::kSUM, *x, *other.newSymbol("z")), nullptr);
    EXPECT_NE(builder.lastError().find("another expression builder"), std::string::npos);
}

TEST_F(Simplification, StructuralEqualityAcrossBuilders)
{
    ExprBuilder other;
    Expr const* x2 = other.newSymbol("x");
    Expr const* y2 = other.newSymbol("y");
    Expr const* here = op(DimensionOperation::kMAX, op(DimensionOperation::kPROD, x, y), c(1));
    Expr const* there
        = other.apply(DimensionOperation::kMAX, other.apply(DimensionOperation::kPROD, y2, x2), other.constant(1));
    EXPECT_TRUE(kiln::shape::structurallyEqual(*here, *there));
    EXPECT_TRUE(kiln::shape::structurallyEqual(*here, *here));
    Expr const* different
        = other.apply(DimensionOperation::kMAX, other.apply(DimensionOperation::kPROD, y2, x2), other.constant(2));
    EXPECT_FALSE(kiln::shape::structurallyEqual(*here, *different));
    EXPECT_FALSE(kiln::shape::structurallyEqual(*x, *y));
    EXPECT_TRUE(kiln::shape::structurallyEqual(static_cast<nvinfer1::IDimensionExpr const&>(*c(3)),
        static_cast<nvinfer1::IDimensionExpr const&>(*other.constant(3))));
}

TEST_F(Simplification, SizeTensorsAreNewRuntimeValues)
{
    nvinfer1::IExprBuilder& api = builder;
    nvinfer1::IDimensionExpr const* first = api.declareSizeTensor(0, *c(16), *c(64));
    nvinfer1::IDimensionExpr const* second = api.declareSizeTensor(0, *c(16), *c(64));
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_TRUE(first->isSizeTensor());
    EXPECT_FALSE(first->isConstant());
    EXPECT_EQ(first->getConstantValue(), std::numeric_limits<int64_t>::min());
    EXPECT_NE(first, second); // two declarations are two runtime values

    auto const* node = dynamic_cast<Expr const*>(first);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->sizeTensorOutputIndex(), 0);
    EXPECT_EQ(&node->sizeTensorOpt(), c(16));
    EXPECT_EQ(&node->sizeTensorUpper(), c(64));
    EXPECT_EQ(builder.symbol(node->symbolId()), node);
    EXPECT_EQ(kiln::shape::toString(*node), "out0.size");
    EXPECT_NE(kiln::shape::toString(*dynamic_cast<Expr const*>(second)), "out0.size"); // names stay distinct

    // A size tensor is an operand like any other, and x - x still cancels.
    EXPECT_EQ(builder.operation(DimensionOperation::kSUB, *first, *first), c(0));
    Expr const* doubled = builder.operation(DimensionOperation::kPROD, *first, *c(2));
    ASSERT_NE(doubled, nullptr);
    EXPECT_FALSE(doubled->isConstant());
}

TEST_F(Simplification, DeclareSizeTensorRejectsNegativeOutputIndex)
{
    EXPECT_EQ(builder.declareSizeTensor(-1, *c(1), *c(2)), nullptr);
    EXPECT_NE(builder.lastError().find("negative output index -1"), std::string::npos) << builder.lastError();
}

} // namespace
