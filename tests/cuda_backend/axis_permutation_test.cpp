// Shuffles as permutations of axes (backend/cuda/axis_permutation.h), without a GPU: the simplified form the shuffle
// kernel chooses by (rows kept whole, the innermost axis moved, a copy), and which shuffles are one permutation.
#include "backend/cuda/axis_permutation.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace
{

using kiln::Shape;
using kiln::cuda::AxisPermutation;
using kiln::cuda::shuffleAsPermutation;
using kiln::cuda::simplifyPermutation;

void expectSimplified(AxisPermutation const& given, Shape const& extents, std::vector<int32_t> const& order)
{
    AxisPermutation const simple = simplifyPermutation(given);
    EXPECT_EQ(simple.extents, extents);
    EXPECT_EQ(simple.order, order);
}

TEST(CudaAxisPermutation, NeighboursThatStayTogetherMerge)
{
    // The attention heads: the split and merge keep the 64-element rows; the keys' transpose moves them.
    expectSimplified({{2, 128, 12, 64}, {0, 2, 1, 3}}, {2, 128, 12, 64}, {0, 2, 1, 3});
    expectSimplified({{2, 128, 12, 64}, {0, 2, 3, 1}}, {2, 128, 768}, {0, 2, 1});
    // NCHW to NHWC: the spatial axes move as one.
    expectSimplified({{8, 3, 224, 224}, {0, 2, 3, 1}}, {8, 3, 224 * 224}, {0, 2, 1});
    // Everything in order but for the outermost pair.
    expectSimplified({{2, 3, 4, 5}, {1, 0, 2, 3}}, {2, 3, 20}, {1, 0, 2});
    // A full reversal merges nothing.
    expectSimplified({{2, 3, 4}, {2, 1, 0}}, {2, 3, 4}, {2, 1, 0});
}

TEST(CudaAxisPermutation, ExtentsOfOneDisappear)
{
    expectSimplified({{1, 128, 1, 64}, {2, 1, 0, 3}}, {128 * 64}, {0});
    expectSimplified({{2, 1, 3}, {2, 0, 1}}, {2, 3}, {1, 0});
    expectSimplified({{1, 1}, {1, 0}}, {1}, {0});
    expectSimplified({{5, 7}, {0, 1}}, {35}, {0});
}

TEST(CudaAxisPermutation, ShufflesThatAreOnePermutation)
{
    // Only a first transpose: the reshape reinterprets its contiguous result.
    std::optional<AxisPermutation> const first = shuffleAsPermutation({1, 0, 2}, {0, 1}, {4, 6, 10}, {24, 10});
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->extents, (Shape{4, 6, 10}));
    EXPECT_EQ(first->order, (std::vector<int32_t>{1, 0, 2}));
    // Only a second transpose: it permutes the reshaped input.
    std::optional<AxisPermutation> const second
        = shuffleAsPermutation({0, 1, 2}, {0, 2, 1, 3}, {2, 128, 768}, {2, 128, 12, 64});
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->extents, (Shape{2, 128, 12, 64}));
    EXPECT_EQ(second->order, (std::vector<int32_t>{0, 2, 1, 3}));
    // Both, around a reshape that keeps the first transpose's extents: output axis i is input axis
    // first[second[i]].
    std::optional<AxisPermutation> const both = shuffleAsPermutation({2, 0, 1}, {2, 1, 0}, {3, 4, 5}, {5, 3, 4});
    ASSERT_TRUE(both.has_value());
    EXPECT_EQ(both->extents, (Shape{3, 4, 5}));
    EXPECT_EQ(both->order, (std::vector<int32_t>{1, 0, 2}));
    // Both, around a true reshape: not one permutation.
    EXPECT_FALSE(shuffleAsPermutation({1, 0, 2}, {2, 0, 1}, {4, 6, 10}, {12, 2, 10}).has_value());
}

} // namespace
