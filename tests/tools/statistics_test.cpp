// The summary statistics, against values worked out by hand with trtexec's definitions.
#include "statistics.h"

#include <gtest/gtest.h>

namespace
{

using kiln::cli::summarize;

TEST(Statistics, MinMaxMeanMedianOfAnOddCount)
{
    auto const s = summarize({5, 1, 3}, {});
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 5);
    EXPECT_EQ(s.mean, 3);
    EXPECT_EQ(s.median, 3);
}

TEST(Statistics, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo)
{
    EXPECT_EQ(summarize({4, 1, 3, 2}, {}).median, 2.5);
}

TEST(Statistics, PercentilesDropTheLargestShareOfValues)
{
    // Ten values 1..10: p90 drops floor(0.1 * 10) = 1 value, so it is 9; p95 drops floor(0.5) = 0, so 10;
    // p50 drops 5, so 5; p0 drops all but the smallest; p100 drops none.
    std::vector<double> values{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    auto const s = summarize(values, {90, 95, 50, 0, 100});
    EXPECT_EQ(s.percentiles, (std::vector<double>{9, 10, 5, 1, 10}));
}

TEST(Statistics, CoefficientOfVariation)
{
    // Values 1 and 3: mean 2, population standard deviation 1.
    EXPECT_DOUBLE_EQ(summarize({1, 3}, {}).coefficientOfVariation, 0.5);
    EXPECT_EQ(summarize({2, 2, 2}, {}).coefficientOfVariation, 0);
}

TEST(Statistics, EmptyInputGivesZeros)
{
    auto const s = summarize({}, {90});
    EXPECT_EQ(s.mean, 0);
    EXPECT_EQ(s.percentiles, (std::vector<double>{0}));
}

} // namespace
