// Every DimensionOperation on constants, through the IExprBuilder interface, against hand-computed values.
#include "shape/expr_builder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace
{

using kiln::shape::ExprBuilder;
using nvinfer1::DimensionOperation;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

class ConstantFolding : public ::testing::Test
{
protected:
    //! op(a, b) through the public interface; the value, or a sentinel test failure when it is not a constant.
    int64_t fold(DimensionOperation op, int64_t a, int64_t b)
    {
        nvinfer1::IExprBuilder& api = builder;
        nvinfer1::IDimensionExpr const* result = api.operation(op, *api.constant(a), *api.constant(b));
        EXPECT_NE(result, nullptr) << builder.lastError();
        if (result == nullptr)
        {
            return -424242;
        }
        EXPECT_TRUE(result->isConstant());
        return result->getConstantValue();
    }

    //! True when op(a, b) fails: nullptr and a recorded message containing `why`.
    bool fails(DimensionOperation op, int64_t a, int64_t b, std::string const& why)
    {
        size_t const errorsBefore = builder.errorCount();
        nvinfer1::IDimensionExpr const* result = builder.operation(op, *builder.constant(a), *builder.constant(b));
        return result == nullptr && builder.errorCount() == errorsBefore + 1
            && builder.lastError().find(why) != std::string::npos;
    }

    ExprBuilder builder;
};

TEST_F(ConstantFolding, ConstantsReportTheirValue)
{
    nvinfer1::IDimensionExpr const* seven = builder.constant(7);
    ASSERT_NE(seven, nullptr);
    EXPECT_TRUE(seven->isConstant());
    EXPECT_FALSE(seven->isSizeTensor());
    EXPECT_EQ(seven->getConstantValue(), 7);
    EXPECT_EQ(builder.constant(-3)->getConstantValue(), -3);
    EXPECT_EQ(builder.constant(kMin)->getConstantValue(), kMin);
    EXPECT_EQ(builder.constant(kMax)->getConstantValue(), kMax);
}

TEST_F(ConstantFolding, EqualConstantsAreOneNode)
{
    EXPECT_EQ(builder.constant(5), builder.constant(5));
    EXPECT_NE(builder.constant(5), builder.constant(6));
}

TEST_F(ConstantFolding, SumProdSub)
{
    EXPECT_EQ(fold(DimensionOperation::kSUM, 3, 4), 7);
    EXPECT_EQ(fold(DimensionOperation::kSUM, -10, 4), -6);
    EXPECT_EQ(fold(DimensionOperation::kPROD, 6, 7), 42);
    EXPECT_EQ(fold(DimensionOperation::kPROD, -6, 7), -42);
    EXPECT_EQ(fold(DimensionOperation::kPROD, -6, -7), 42);
    EXPECT_EQ(fold(DimensionOperation::kSUB, 3, 10), -7);
    EXPECT_EQ(fold(DimensionOperation::kSUB, -3, -10), 7);
}

TEST_F(ConstantFolding, MaxMin)
{
    EXPECT_EQ(fold(DimensionOperation::kMAX, 3, 9), 9);
    EXPECT_EQ(fold(DimensionOperation::kMAX, -3, -9), -3);
    EXPECT_EQ(fold(DimensionOperation::kMIN, 3, 9), 3);
    EXPECT_EQ(fold(DimensionOperation::kMIN, -3, -9), -9);
    EXPECT_EQ(fold(DimensionOperation::kMIN, kMin, kMax), kMin);
}

TEST_F(ConstantFolding, ComparisonsGiveOneOrZero)
{
    EXPECT_EQ(fold(DimensionOperation::kEQUAL, 4, 4), 1);
    EXPECT_EQ(fold(DimensionOperation::kEQUAL, 4, 5), 0);
    EXPECT_EQ(fold(DimensionOperation::kLESS, 4, 5), 1);
    EXPECT_EQ(fold(DimensionOperation::kLESS, 5, 4), 0);
    EXPECT_EQ(fold(DimensionOperation::kLESS, 4, 4), 0);
    EXPECT_EQ(fold(DimensionOperation::kLESS, -5, 4), 1);
}

TEST_F(ConstantFolding, FloorDivRoundsTowardNegativeInfinity)
{
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, 7, 2), 3);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, 6, 2), 3);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, -7, 2), -4);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, 7, -2), -4);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, -7, -2), 3);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, -6, 2), -3);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, -1, 3), -1);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, 0, -5), 0);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, kMin, 2), kMin / 2);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, kMin, 1), kMin);
    EXPECT_EQ(fold(DimensionOperation::kFLOOR_DIV, kMax, -1), -kMax);
}

TEST_F(ConstantFolding, CeilDivRoundsTowardPositiveInfinity)
{
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, 7, 2), 4);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, 6, 2), 3);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, -7, 2), -3);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, 7, -2), -3);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, -7, -2), 4);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, 1, 3), 1);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, -1, 3), 0);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, kMax, 2), kMax / 2 + 1);
    EXPECT_EQ(fold(DimensionOperation::kCEIL_DIV, kMin, 2), kMin / 2);
}

TEST_F(ConstantFolding, DivisionByZeroGivesNullAndAMessage)
{
    EXPECT_TRUE(fails(DimensionOperation::kFLOOR_DIV, 7, 0, "division by zero"));
    EXPECT_TRUE(fails(DimensionOperation::kCEIL_DIV, -7, 0, "division by zero"));
    EXPECT_TRUE(fails(DimensionOperation::kFLOOR_DIV, 0, 0, "division by zero"));
    EXPECT_NE(builder.lastError().find("floor_div(0, 0)"), std::string::npos) << builder.lastError();
}

TEST_F(ConstantFolding, Int64OverflowGivesNullAndAMessage)
{
    EXPECT_TRUE(fails(DimensionOperation::kSUM, kMax, 1, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kSUM, kMin, -1, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kPROD, int64_t{1} << 32, int64_t{1} << 31, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kPROD, kMin, -1, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kSUB, kMin, 1, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kSUB, 0, kMin, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kFLOOR_DIV, kMin, -1, "overflow"));
    EXPECT_TRUE(fails(DimensionOperation::kCEIL_DIV, kMin, -1, "overflow"));
    // The edges that still fit.
    EXPECT_EQ(fold(DimensionOperation::kSUM, kMax - 1, 1), kMax);
    EXPECT_EQ(fold(DimensionOperation::kPROD, int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
    EXPECT_EQ(fold(DimensionOperation::kPROD, int64_t{1} << 62, -2), kMin);
    EXPECT_EQ(fold(DimensionOperation::kSUB, -1, kMax), kMin);
}

TEST_F(ConstantFolding, InvalidOperationValueGivesNull)
{
    nvinfer1::IDimensionExpr const* two = builder.constant(2);
    EXPECT_EQ(builder.operation(static_cast<DimensionOperation>(9), *two, *two), nullptr);
    EXPECT_NE(builder.lastError().find("invalid DimensionOperation value 9"), std::string::npos);
    EXPECT_EQ(builder.operation(static_cast<DimensionOperation>(-1), *two, *two), nullptr);
    EXPECT_EQ(builder.errorCount(), 2U);
}

TEST_F(ConstantFolding, ErrorsStayUntilCleared)
{
    EXPECT_TRUE(builder.lastError().empty());
    EXPECT_TRUE(fails(DimensionOperation::kFLOOR_DIV, 1, 0, "division by zero"));
    EXPECT_EQ(fold(DimensionOperation::kSUM, 1, 1), 2);
    EXPECT_FALSE(builder.lastError().empty()); // a later success does not hide the failure
    builder.clearErrors();
    EXPECT_TRUE(builder.lastError().empty());
    EXPECT_EQ(builder.errorCount(), 0U);
}

} // namespace
