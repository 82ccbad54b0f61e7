// expectClose: which differences the tolerance lets through, and how NaN and infinity compare.
#include "expect_close.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

TEST(ExpectClose, AnAbsoluteToleranceIncludesItsBound)
{
    expectClose({1.0F, -2.0F}, {1.5F, -2.5F}, 0.5);
    EXPECT_NONFATAL_FAILURE(expectClose({1.0F}, {1.625F}, 0.5, "probe"), "probe: element 0");
    EXPECT_NONFATAL_FAILURE(expectClose({1.0F}, {1.0F + 1e-6F}, 0.0), "element 0");
}

TEST(ExpectClose, TheRelativeToleranceScalesWithTheExpectedValue)
{
    // |100.5 - 100| = 0.5 <= 0.1 + 0.01 * 100; |1.5 - 1| = 0.5 > 0.1 + 0.01 * 1.
    expectClose({100.5F}, {100.0F}, {0.1, 0.01});
    EXPECT_NONFATAL_FAILURE(expectClose({1.5F}, {1.0F}, {0.1, 0.01}), "element 0");
}

TEST(ExpectClose, NanMatchesOnlyNanAndInfinityItself)
{
    expectClose({NAN, INFINITY, -INFINITY}, {NAN, INFINITY, -INFINITY}, 0.0);
    EXPECT_NONFATAL_FAILURE(expectClose({0.0F}, {NAN}, 1.0), "not NaN");
    EXPECT_NONFATAL_FAILURE(expectClose({NAN}, {0.0F}, 1.0), "element 0");
    EXPECT_NONFATAL_FAILURE(expectClose({INFINITY}, {-INFINITY}, 1.0), "element 0");
}

TEST(ExpectClose, DoubleReferencesKeepTheirPrecision)
{
    // 1 + 1e-9 rounds to 1 in float: against the double reference the float 1 is 1e-9 away, not 0.
    std::vector<double> const reference{1.0 + 1e-9};
    expectClose(std::vector<double>{1.0}, reference, 2e-9);
    EXPECT_NONFATAL_FAILURE(
        expectClose(std::vector<double>{1.0}, std::vector<double>{1.0 + 1e-9}, 0.5e-9), "element 0");
}

TEST(ExpectClose, DifferentSizesStopTheComparison)
{
    EXPECT_FATAL_FAILURE(expectClose({1.0F}, {1.0F, 2.0F}, 1.0, "pair"), "pair: the element counts differ");
}

TEST(ExpectClose, TensorsOfOneTypeAndShape)
{
    expectClose(
        fromFloats({2}, {1.0F, 2.0F}, DataType::kHALF), fromFloats({2}, {1.0F, 2.001F}, DataType::kHALF), 0.002);
    expectClose(fromInts({2}, {1, 2}, DataType::kINT32), fromInts({2}, {1, 2}, DataType::kINT32), 0.0);
    EXPECT_NONFATAL_FAILURE(
        expectClose(fromInts({1}, {1}, DataType::kINT32), fromInts({1}, {2}, DataType::kINT32), 5.0), "INT32 elements");
    EXPECT_FATAL_FAILURE(expectClose(fromFloats({1}, {1}), fromFloats({1}, {1}, DataType::kHALF), 1.0), "types differ");
    EXPECT_FATAL_FAILURE(expectClose(fromFloats({1, 2}, {1, 2}), fromFloats({2}, {1, 2}), 1.0), "shapes differ");
}

} // namespace
} // namespace kiln::test
