// Values of symbolic expressions under bindings, and clean failures.
#include "shape/evaluate.h"
#include "shape/expr_builder.h"

#include <gtest/gtest.h>

#include <limits>

namespace
{

using kiln::shape::EvalResult;
using kiln::shape::Expr;
using kiln::shape::ExprBuilder;
using kiln::shape::SymbolValues;
using nvinfer1::DimensionOperation;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

class Evaluation : public ::testing::Test
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
    EvalResult evaluate(Expr const* expr, int64_t hValue, int64_t wValue)
    {
        SymbolValues values;
        values.set(h->symbolId(), hValue);
        values.set(w->symbolId(), wValue);
        return kiln::shape::evaluate(*expr, values);
    }

    ExprBuilder builder;
    Expr const* h = builder.newSymbol("H");
    Expr const* w = builder.newSymbol("W");
};

TEST_F(Evaluation, EveryOperationOverSymbols)
{
    struct Case
    {
        DimensionOperation op;
        int64_t h;
        int64_t w;
        int64_t expected;
    };
    Case const cases[] = {
        {DimensionOperation::kSUM, 3, 4, 7},
        {DimensionOperation::kPROD, -3, 4, -12},
        {DimensionOperation::kMAX, -3, -4, -3},
        {DimensionOperation::kMIN, -3, -4, -4},
        {DimensionOperation::kSUB, 3, 4, -1},
        {DimensionOperation::kEQUAL, 4, 4, 1},
        {DimensionOperation::kEQUAL, 4, 5, 0},
        {DimensionOperation::kLESS, 4, 5, 1},
        {DimensionOperation::kLESS, 5, 5, 0},
        {DimensionOperation::kFLOOR_DIV, -7, 2, -4},
        {DimensionOperation::kFLOOR_DIV, 7, -2, -4},
        {DimensionOperation::kFLOOR_DIV, -8, 2, -4},
        {DimensionOperation::kCEIL_DIV, -7, 2, -3},
        {DimensionOperation::kCEIL_DIV, 7, 2, 4},
        {DimensionOperation::kCEIL_DIV, -7, -2, 4},
    };
    for (Case const& tc : cases)
    {
        EvalResult const result = evaluate(op(tc.op, h, w), tc.h, tc.w);
        ASSERT_TRUE(result.ok()) << result.error;
        EXPECT_EQ(*result.value, tc.expected) << static_cast<int>(tc.op) << " " << tc.h << " " << tc.w;
    }
}

TEST_F(Evaluation, OneExpressionUnderSeveralBindings)
{
    // (H * W + 5) ceil_div 4, then max with H.
    Expr const* e = op(DimensionOperation::kMAX,
        op(DimensionOperation::kCEIL_DIV, op(DimensionOperation::kSUM, op(DimensionOperation::kPROD, h, w), c(5)),
            c(4)),
        h);
    EXPECT_EQ(evaluate(e, 1, 1).value, 2);   // ceil(6/4) = 2, max(2, 1)
    EXPECT_EQ(evaluate(e, 2, 3).value, 3);   // ceil(11/4) = 3
    EXPECT_EQ(evaluate(e, 10, 1).value, 10); // ceil(15/4) = 4 < 10
    EXPECT_EQ(evaluate(e, 0, 7).value, 2);   // ceil(5/4) = 2
    EXPECT_EQ(evaluate(e, -3, 3).value, -1); // ceil(-4/4) = -1, max(-1, -3)
}

TEST_F(Evaluation, UnboundSymbolFailsWithItsName)
{
    SymbolValues onlyH;
    onlyH.set(h->symbolId(), 3);
    EvalResult const result = kiln::shape::evaluate(*op(DimensionOperation::kSUM, h, w), onlyH);
    EXPECT_FALSE(result.ok());
    EXPECT_NE(result.error.find("no value for symbol 'W'"), std::string::npos) << result.error;
    EXPECT_TRUE(kiln::shape::evaluate(*h, onlyH).ok());
}

TEST_F(Evaluation, DivisionByZeroFailsCleanly)
{
    Expr const* divisor = op(DimensionOperation::kSUB, w, c(1));
    Expr const* e = op(DimensionOperation::kFLOOR_DIV, h, divisor);
    EvalResult const zero = evaluate(e, 10, 1);
    EXPECT_FALSE(zero.ok());
    EXPECT_NE(zero.error.find("division by zero in floor_div(H, W - 1): W - 1 is 0"), std::string::npos) << zero.error;
    EXPECT_EQ(evaluate(e, 10, 3).value, 5);
    EXPECT_FALSE(evaluate(op(DimensionOperation::kCEIL_DIV, h, w), 1, 0).ok());
}

TEST_F(Evaluation, Int64OverflowFailsCleanly)
{
    EvalResult const sum = evaluate(op(DimensionOperation::kSUM, h, w), kMax, 1);
    EXPECT_FALSE(sum.ok());
    EXPECT_NE(sum.error.find("int64 overflow in H + W"), std::string::npos) << sum.error;
    EXPECT_FALSE(evaluate(op(DimensionOperation::kPROD, h, w), int64_t{1} << 32, int64_t{1} << 32).ok());
    EXPECT_FALSE(evaluate(op(DimensionOperation::kPROD, h, w), kMin, -1).ok());
    EXPECT_FALSE(evaluate(op(DimensionOperation::kSUB, h, w), kMin, 1).ok());
    EXPECT_FALSE(evaluate(op(DimensionOperation::kSUB, h, w), kMax, -1).ok());
    EXPECT_FALSE(evaluate(op(DimensionOperation::kFLOOR_DIV, h, w), kMin, -1).ok());
    // A constant overflow hidden behind a symbol: H + (max - 1) is fine for H = 1 and not for H = 2.
    Expr const* nearMax = op(DimensionOperation::kSUM, h, c(kMax - 1));
    EXPECT_EQ(evaluate(nearMax, 1, 0).value, kMax);
    EXPECT_FALSE(evaluate(nearMax, 2, 0).ok());
}

TEST_F(Evaluation, EvaluatorReusesSharedWorkAcrossExpressions)
{
    SymbolValues values;
    values.set(h->symbolId(), 6);
    values.set(w->symbolId(), 4);
    kiln::shape::Evaluator evaluator(values);
    Expr const* area = op(DimensionOperation::kPROD, h, w);
    EXPECT_EQ(evaluator.evaluate(*area).value, 24);
    // Nodes made after the first call are evaluated too.
    Expr const* half = op(DimensionOperation::kFLOOR_DIV, area, c(2));
    EXPECT_EQ(evaluator.evaluate(*half).value, 12);
    // After the values change, reset() drops the cached results.
    values.set(w->symbolId(), 5);
    evaluator.reset();
    EXPECT_EQ(evaluator.evaluate(*half).value, 15);
}

TEST_F(Evaluation, DeepAndWideSharedExpressions)
{
    // A chain 100000 operations deep would overflow a recursive evaluator's stack.
    Expr const* chain = h;
    for (int i = 0; i < 50000; ++i)
    {
        chain = op(DimensionOperation::kPROD, op(DimensionOperation::kSUM, chain, w), c(1));
        chain = op(DimensionOperation::kMAX, chain, h);
    }
    EXPECT_EQ(evaluate(chain, 1, 1).value, 50001);
    // Doubling a shared node 62 times is 2^62 paths but 63 distinct nodes.
    Expr const* doubled = h;
    for (int i = 0; i < 62; ++i)
    {
        doubled = op(DimensionOperation::kSUM, doubled, doubled);
    }
    EXPECT_EQ(evaluate(doubled, 1, 0).value, int64_t{1} << 62);
    EXPECT_FALSE(evaluate(doubled, 2, 0).ok()); // 2^63 does not fit
}

TEST_F(Evaluation, SizeTensorsByBindingOptOrUpper)
{
    Expr const* count = builder.declareSizeTensor(1, *op(DimensionOperation::kFLOOR_DIV, h, c(2)), *h);
    ASSERT_NE(count, nullptr);
    Expr const* bytes = op(DimensionOperation::kPROD, count, c(4));
    SymbolValues values;
    values.set(h->symbolId(), 100);
    EvalResult const unbound = kiln::shape::evaluate(*bytes, values);
    EXPECT_FALSE(unbound.ok());
    EXPECT_NE(unbound.error.find("no value for size tensor 'out1.size'"), std::string::npos) << unbound.error;
    EXPECT_EQ(kiln::shape::evaluate(*bytes, values, kiln::shape::SizeTensorValue::kOPT).value, 200);
    EXPECT_EQ(kiln::shape::evaluate(*bytes, values, kiln::shape::SizeTensorValue::kUPPER).value, 400);
    values.set(count->symbolId(), 7);
    EXPECT_EQ(kiln::shape::evaluate(*bytes, values).value, 28);
}

} // namespace
