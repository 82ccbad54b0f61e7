// checked_size.h: products that fit are exact, products that do not are refused rather than wrapped.
#include "core/checked_size.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln
{
namespace
{

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedSize, MultiplyIsExactUntilItWouldOverflow)
{
    EXPECT_EQ(checkedMultiply(3, 7), 21);
    EXPECT_EQ(checkedMultiply(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
    EXPECT_EQ(checkedMultiply(int64_t{1} << 32, int64_t{1} << 31), std::nullopt);
    EXPECT_EQ(checkedMultiply(kMax, 1), kMax);
    EXPECT_EQ(checkedMultiply(kMax, 2), std::nullopt);
    EXPECT_EQ(checkedMultiply(-1, 2), std::nullopt);
}

TEST(CheckedSize, AddRefusesOverflowAndNegatives)
{
    EXPECT_EQ(checkedAdd(kMax - 1, 1), kMax);
    EXPECT_EQ(checkedAdd(kMax, 1), std::nullopt);
    EXPECT_EQ(checkedAdd(-3, 4), std::nullopt);
}

TEST(CheckedSize, ElementCountOfExtents)
{
    EXPECT_EQ(checkedElementCount(std::vector<int64_t>{}), 1);
    EXPECT_EQ(checkedElementCount(std::vector<int64_t>{2, 3, 4}), 24);
    // 2^62 * 4 wraps to 0 in 64 bits: the product of ConstantOfShape's hostile shape.
    EXPECT_EQ(checkedElementCount(std::vector<int64_t>{int64_t{1} << 62, 4}), std::nullopt);
    EXPECT_EQ(checkedElementCount(std::vector<int64_t>{2, -1}), std::nullopt);
    // A zero extent makes the count 0 even where the other extents' product would overflow.
    EXPECT_EQ(checkedElementCount(std::vector<int64_t>{kMax, kMax, 0}), 0);
    EXPECT_EQ(checkedElementCount(std::vector<int32_t>{1 << 20, 1 << 20, 1 << 20}), int64_t{1} << 60);
}

TEST(CheckedSize, ByteSizeFitsAnAddressableObject)
{
    EXPECT_EQ(checkedByteSize(10, 4), size_t{40});
    EXPECT_EQ(checkedByteSize(0, 8), size_t{0});
    EXPECT_EQ(checkedByteSize(int64_t{1} << 61, 4), std::nullopt);
    EXPECT_EQ(checkedByteSize(-1, 4), std::nullopt);
}

} // namespace
} // namespace kiln
