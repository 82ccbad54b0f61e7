#include "builder/memory_plan.h"

#include <gtest/gtest.h>

#include <limits>

namespace
{

using kiln::builder::BufferRequest;
using kiln::builder::planMemory;

bool overlap(int64_t offsetA, int64_t bytesA, int64_t offsetB, int64_t bytesB)
{
    return offsetA < offsetB + bytesB && offsetB < offsetA + bytesA;
}

TEST(MemoryPlan, BuffersAliveTogetherDoNotOverlap)
{
    // A chain a -> b -> c: a and b are alive at step 1, b and c at step 2.
    std::vector<BufferRequest> const requests{{1000, 0, 1}, {2000, 1, 2}, {1000, 2, 3}};
    auto const plan = planMemory(requests, 256);
    ASSERT_TRUE(plan);
    EXPECT_FALSE(overlap(plan->offsets[0], 1000, plan->offsets[1], 2000));
    EXPECT_FALSE(overlap(plan->offsets[1], 2000, plan->offsets[2], 1000));
    // a is dead when c is written: they share memory, so the total is b + one of them.
    EXPECT_EQ(plan->offsets[0], plan->offsets[2]);
    EXPECT_EQ(plan->totalBytes, 2048 + 1024);
}

TEST(MemoryPlan, AlignmentIsRespected)
{
    std::vector<BufferRequest> const requests{{10, 0, 5}, {10, 0, 5}, {10, 0, 5}};
    auto const plan = planMemory(requests, 64);
    ASSERT_TRUE(plan);
    for (int64_t offset : plan->offsets)
    {
        EXPECT_EQ(offset % 64, 0);
    }
    EXPECT_EQ(plan->totalBytes, 3 * 64);
}

TEST(MemoryPlan, GapsAreReused)
{
    // Two long-lived buffers around a gap left by a short-lived one.
    std::vector<BufferRequest> const requests{{512, 0, 10}, {256, 0, 1}, {512, 0, 10}, {256, 5, 6}};
    auto const plan = planMemory(requests, 256);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->totalBytes, 512 + 512 + 256);
    EXPECT_FALSE(overlap(plan->offsets[3], 256, plan->offsets[0], 512));
    EXPECT_FALSE(overlap(plan->offsets[3], 256, plan->offsets[2], 512));
}

TEST(MemoryPlan, EmptyRequestList)
{
    auto const plan = planMemory({}, 256);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->totalBytes, 0);
}

TEST(MemoryPlan, ALayoutPastInt64IsRefused)
{
    // Each size fits int64 (a model's extents can make them so), but two alive together do not, nor does one
    // rounded up to the alignment: a wrapped offset would put both buffers in the same bytes.
    int64_t const half = std::numeric_limits<int64_t>::max() / 2 + 1;
    EXPECT_FALSE(planMemory({{half, 0, 1}, {half, 0, 1}}, 256));
    EXPECT_FALSE(planMemory({{std::numeric_limits<int64_t>::max() - 10, 0, 1}}, 256));
    // Alive at different times, they share their bytes and fit.
    auto const plan = planMemory({{half, 0, 1}, {half, 2, 3}}, 256);
    ASSERT_TRUE(plan);
    EXPECT_EQ(plan->totalBytes, half);
}

} // namespace
