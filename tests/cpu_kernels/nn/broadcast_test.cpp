// The shared helpers: element access, broadcasting, sliding-window geometry.
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/shared/sliding_window.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using backend::dilatedWindow;
using backend::forwardWindowGeometry;
using backend::transposedWindowGeometry;
using backend::WindowGeometry;
using nvinfer1::PaddingMode;

TEST(ElementAccess, HalfAndBf16StoresRoundToNearestEven)
{
    HostTensor half = fromFloats({3}, {1.0F, 1.0F + 1.0F / 2048.0F, 1.0F + 3.0F / 2048.0F}, DataType::kHALF);
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even mantissa wins (1). 1 + 3 * 2^-11 ties up to 1 + 2^-9.
    expectClose(half.floats(), {1.0F, 1.0F, 1.0F + 2.0F / 1024.0F}, 0.0F);
    HostTensor bf16 = fromFloats({1}, {1.0F + 1.0F / 256.0F}, DataType::kBF16);
    EXPECT_EQ(bf16.floats()[0], 1.0F); // a tie; rounds to the even neighbour
}

TEST(ElementAccess, IntegersWrapToTheirWidth)
{
    HostTensor i32 = fromInts({2}, {int64_t{1} << 31, -1}, DataType::kINT32);
    EXPECT_EQ(i32.ints(), (std::vector<int64_t>{-(int64_t{1} << 31), -1}));
    HostTensor boolean = fromInts({3}, {0, 5, -1}, DataType::kBOOL);
    EXPECT_EQ(boolean.ints(), (std::vector<int64_t>{0, 1, 1}));
    EXPECT_EQ(loadFloat(boolean.constView(), 1), 1.0F);
}

TEST(Broadcast, ShapesOfTwoAndThreeOperands)
{
    EXPECT_EQ(broadcastShape({{2, 1, 3}, {1, 4, 3}}), (Shape{2, 4, 3}));
    EXPECT_EQ(broadcastShape({{2, 1, 3}, {1, 4, 1}, {1, 1, 1}}), (Shape{2, 4, 3}));
    EXPECT_EQ(broadcastShape({{0, 3}, {1, 3}}), (Shape{0, 3}));
    EXPECT_THROW(broadcastShape({{2, 3}, {3, 3}}), std::invalid_argument);
    EXPECT_THROW(broadcastShape({{3}, {1, 3}}), std::invalid_argument);
}

TEST(Broadcast, WalkerVisitsOperandsInOutputOrder)
{
    // Output [2, 2, 3] from [2, 1, 3] and [1, 2, 1]: offsets written out by hand.
    BroadcastWalker walker({2, 2, 3}, {{2, 1, 3}, {1, 2, 1}});
    std::vector<int64_t> const first{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5};
    std::vector<int64_t> const second{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1};
    for (size_t i = 0; i < first.size(); ++i, walker.next())
    {
        EXPECT_EQ(walker.offset(0), first[i]) << i;
        EXPECT_EQ(walker.offset(1), second[i]) << i;
    }
    EXPECT_THROW(BroadcastWalker({2, 3}, {{2, 2}}), std::invalid_argument);
}

TEST(SlidingWindow, ExplicitRoundingWithOddAndEvenInputs)
{
    // Window 3, stride 2, no padding: I = 5 gives 2 either way; I = 6 gives 2 rounding down and 3 rounding up.
    auto outputOf = [](int64_t in, PaddingMode mode) {
        return forwardWindowGeometry({in}, {3}, {2}, {0}, {0}, mode).outputSize[0];
    };
    EXPECT_EQ(outputOf(5, PaddingMode::kEXPLICIT_ROUND_DOWN), 2);
    EXPECT_EQ(outputOf(5, PaddingMode::kEXPLICIT_ROUND_UP), 2);
    EXPECT_EQ(outputOf(6, PaddingMode::kEXPLICIT_ROUND_DOWN), 2);
    EXPECT_EQ(outputOf(6, PaddingMode::kEXPLICIT_ROUND_UP), 3);
    // Explicit padding is used as given: (7 + 1 + 2 - 3) / 2 + 1 = 4 (floor) or 5 (ceil).
    EXPECT_EQ(forwardWindowGeometry({7}, {3}, {2}, {1}, {2}, PaddingMode::kEXPLICIT_ROUND_DOWN).outputSize[0], 4);
    EXPECT_EQ(forwardWindowGeometry({7}, {3}, {2}, {1}, {2}, PaddingMode::kEXPLICIT_ROUND_UP).outputSize[0], 5);
    EXPECT_THROW(
        forwardWindowGeometry({2}, {3}, {1}, {0}, {0}, PaddingMode::kEXPLICIT_ROUND_DOWN), std::invalid_argument);
}

TEST(SlidingWindow, SamePaddingSplitsTheOddElement)
{
    // I = 5, DK = 3, S = 2: O = 3, P = 2 * 2 + 3 - 5 = 2, split 1 / 1 in both modes.
    WindowGeometry upper = forwardWindowGeometry({5}, {3}, {2}, {9}, {9}, PaddingMode::kSAME_UPPER);
    EXPECT_EQ(upper.outputSize, Shape{3});
    EXPECT_EQ(upper.prePadding, Shape{1});
    EXPECT_EQ(upper.postPadding, Shape{1});
    // I = 6: O = 3, P = 2 * 2 + 3 - 6 = 1: the odd element goes after (UPPER) or before (LOWER).
    upper = forwardWindowGeometry({6}, {3}, {2}, {0}, {0}, PaddingMode::kSAME_UPPER);
    EXPECT_EQ(upper.outputSize, Shape{3});
    EXPECT_EQ(upper.prePadding, Shape{0});
    EXPECT_EQ(upper.postPadding, Shape{1});
    WindowGeometry lower = forwardWindowGeometry({6}, {3}, {2}, {0}, {0}, PaddingMode::kSAME_LOWER);
    EXPECT_EQ(lower.prePadding, Shape{1});
    EXPECT_EQ(lower.postPadding, Shape{0});
    // Even window 4, stride 1, I = 5: P = 3 -> 1 / 2 (UPPER), 2 / 1 (LOWER).
    upper = forwardWindowGeometry({5}, {4}, {1}, {0}, {0}, PaddingMode::kSAME_UPPER);
    EXPECT_EQ(upper.outputSize, Shape{5});
    EXPECT_EQ(upper.prePadding, Shape{1});
    EXPECT_EQ(upper.postPadding, Shape{2});
    lower = forwardWindowGeometry({5}, {4}, {1}, {0}, {0}, PaddingMode::kSAME_LOWER);
    EXPECT_EQ(lower.prePadding, Shape{2});
    EXPECT_EQ(lower.postPadding, Shape{1});
    // Window 1, stride 3, I = 5: the formula's P is -1; it is clamped to 0.
    WindowGeometry clamped = forwardWindowGeometry({5}, {1}, {3}, {0}, {0}, PaddingMode::kSAME_UPPER);
    EXPECT_EQ(clamped.outputSize, Shape{2});
    EXPECT_EQ(clamped.prePadding, Shape{0});
    EXPECT_EQ(clamped.postPadding, Shape{0});
}

TEST(SlidingWindow, TransposedSizes)
{
    // I = 3, DK = 3, S = 2: full output 7.
    EXPECT_EQ(transposedWindowGeometry({3}, {3}, {2}, {1}, {1}, PaddingMode::kEXPLICIT_ROUND_DOWN).outputSize[0], 5);
    WindowGeometry upper = transposedWindowGeometry({3}, {3}, {2}, {0}, {0}, PaddingMode::kSAME_UPPER);
    EXPECT_EQ(upper.outputSize, Shape{6}); // min(3 * 2, 7)
    EXPECT_EQ(upper.prePadding, Shape{0}); // P = max(3 - 2, 0) = 1
    EXPECT_EQ(upper.postPadding, Shape{1});
    WindowGeometry lower = transposedWindowGeometry({3}, {3}, {2}, {0}, {0}, PaddingMode::kSAME_LOWER);
    EXPECT_EQ(lower.prePadding, Shape{1});
    EXPECT_EQ(lower.postPadding, Shape{0});
    EXPECT_EQ(dilatedWindow({3, 1}, {2, 5}), (Shape{5, 1}));
}

} // namespace
} // namespace kiln::cpu::test
