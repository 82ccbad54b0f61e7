#include "backend/cpu/kernels/nn/element_wise.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using Op = nvinfer1::ElementWiseOperation;

network::ElementWiseParams operation(Op op)
{
    network::ElementWiseParams params;
    params.operation = op;
    return params;
}

HostTensor apply(Op op, HostTensor const& a, HostTensor const& b)
{
    HostTensor output = zeros(elementWiseOutputShape(a.shape, b.shape), elementWiseOutputType(op, a.type));
    runElementWise(operation(op), a.constView(), b.constView(), output.view());
    return output;
}

TEST(ElementWise, BroadcastsOneExtents)
{
    HostTensor const a = fromFloats({2, 1, 3}, {1, 2, 3, 4, 5, 6});
    HostTensor const b = fromFloats({1, 2, 1}, {10, 20});
    HostTensor const sum = apply(Op::kSUM, a, b);
    EXPECT_EQ(sum.shape, (Shape{2, 2, 3}));
    expectClose(sum.floats(), {11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26}, 0.0F);
    HostTensor const scalarLike = fromFloats({1, 1, 1}, {2});
    expectClose(apply(Op::kPROD, a, scalarLike).floats(), {2, 4, 6, 8, 10, 12}, 0.0F);
}

TEST(ElementWise, FloatArithmetic)
{
    HostTensor const a = fromFloats({4}, {7, -7, 2, -0.5F});
    HostTensor const b = fromFloats({4}, {2, 2, 3, 4});
    expectClose(apply(Op::kSUM, a, b).floats(), {9, -5, 5, 3.5F}, 0.0F);
    expectClose(apply(Op::kPROD, a, b).floats(), {14, -14, 6, -2}, 0.0F);
    expectClose(apply(Op::kMAX, a, b).floats(), {7, 2, 3, 4}, 0.0F);
    expectClose(apply(Op::kMIN, a, b).floats(), {2, -7, 2, -0.5F}, 0.0F);
    expectClose(apply(Op::kSUB, a, b).floats(), {5, -9, -1, -4.5F}, 0.0F);
    expectClose(apply(Op::kDIV, a, b).floats(), {3.5F, -3.5F, 2.0F / 3.0F, -0.125F}, 0.0F);
    expectClose(apply(Op::kPOW, a, b).floats(), {49, 49, 8, 0.0625F}, 0.0F);
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies halfway between two floats: it rounds to the even 1 + 2^-11.
    float const tie = 1.0F + std::ldexp(1.0F, -12);
    EXPECT_EQ(
        apply(Op::kPOW, fromFloats({1}, {tie}), fromFloats({1}, {2.0F})).floats()[0], 1.0F + std::ldexp(1.0F, -11));
    // Floor division rounds toward negative infinity: -7 / 2 = -4, -0.5 / 4 = -1.
    expectClose(apply(Op::kFLOOR_DIV, a, b).floats(), {3, -4, 0, -1}, 0.0F);
}

TEST(ElementWise, FloatEdgeValues)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    float const inf = std::numeric_limits<float>::infinity();
    HostTensor const a = fromFloats({3}, {nan, 1, 0});
    HostTensor const b = fromFloats({3}, {1, nan, 0});
    std::vector<float> const maximum = apply(Op::kMAX, a, b).floats();
    EXPECT_TRUE(std::isnan(maximum[0]) && std::isnan(maximum[1]));
    std::vector<float> const quotient = apply(Op::kDIV, fromFloats({2}, {1, -1}), fromFloats({2}, {0, 0})).floats();
    EXPECT_EQ(quotient[0], inf);
    EXPECT_EQ(quotient[1], -inf);
    EXPECT_TRUE(std::isnan(apply(Op::kDIV, a, b).floats()[2])); // 0 / 0
}

TEST(ElementWise, ComparisonsProduceBool)
{
    HostTensor const a = fromFloats({3}, {1, 2, 3});
    HostTensor const b = fromFloats({3}, {2, 2, 2});
    HostTensor const equal = apply(Op::kEQUAL, a, b);
    EXPECT_EQ(equal.type, DataType::kBOOL);
    EXPECT_EQ(equal.ints(), (std::vector<int64_t>{0, 1, 0}));
    EXPECT_EQ(apply(Op::kGREATER, a, b).ints(), (std::vector<int64_t>{0, 0, 1}));
    EXPECT_EQ(apply(Op::kLESS, a, b).ints(), (std::vector<int64_t>{1, 0, 0}));
    HostTensor const i = fromInts({3}, {-5, 5, 7}, DataType::kINT64);
    HostTensor const j = fromInts({1}, {5}, DataType::kINT64);
    EXPECT_EQ(apply(Op::kEQUAL, i, j).ints(), (std::vector<int64_t>{0, 1, 0}));
}

TEST(ElementWise, Int32DivisionTruncatesAndFloorDivisionFloors)
{
    HostTensor const a = fromInts({4}, {7, -7, 7, -7}, DataType::kINT32);
    HostTensor const b = fromInts({4}, {2, 2, -2, -2}, DataType::kINT32);
    EXPECT_EQ(apply(Op::kDIV, a, b).ints(), (std::vector<int64_t>{3, -3, -3, 3}));
    EXPECT_EQ(apply(Op::kFLOOR_DIV, a, b).ints(), (std::vector<int64_t>{3, -4, -4, 3}));
    // Exact quotients are not adjusted.
    HostTensor const exact = fromInts({2}, {-8, 8}, DataType::kINT32);
    EXPECT_EQ(
        apply(Op::kFLOOR_DIV, exact, fromInts({2}, {2, -2}, DataType::kINT32)).ints(), (std::vector<int64_t>{-4, -4}));
    EXPECT_EQ(apply(Op::kSUM, a, b).ints(), (std::vector<int64_t>{9, -5, 5, -9}));
    EXPECT_EQ(apply(Op::kSUB, a, b).ints(), (std::vector<int64_t>{5, -9, 9, -5}));
    EXPECT_EQ(apply(Op::kPROD, a, b).ints(), (std::vector<int64_t>{14, -14, -14, 14}));
    EXPECT_EQ(apply(Op::kMAX, a, b).ints(), (std::vector<int64_t>{7, 2, 7, -2}));
    EXPECT_EQ(apply(Op::kMIN, a, b).ints(), (std::vector<int64_t>{2, -7, -2, -7}));
}

TEST(ElementWise, IntegerEdgeCasesWrapAndNeverTrap)
{
    int64_t const int32Min = std::numeric_limits<int32_t>::min();
    int64_t const int32Max = std::numeric_limits<int32_t>::max();
    HostTensor const a = fromInts({4}, {int32Max, int32Min, 5, -5}, DataType::kINT32);
    HostTensor const b = fromInts({4}, {1, -1, 0, 0}, DataType::kINT32);
    EXPECT_EQ(apply(Op::kSUM, a, b).ints(), (std::vector<int64_t>{int32Min, int32Max, 5, -5}));
    EXPECT_EQ(apply(Op::kDIV, a, b).ints(), (std::vector<int64_t>{int32Max, int32Min, 0, 0}));
    EXPECT_EQ(apply(Op::kFLOOR_DIV, a, b).ints(), (std::vector<int64_t>{int32Max, int32Min, 0, 0}));
    int64_t const int64Min = std::numeric_limits<int64_t>::min();
    HostTensor const big = fromInts({3}, {3'000'000'000, int64Min, -7}, DataType::kINT64);
    HostTensor const small = fromInts({3}, {2, -1, 2}, DataType::kINT64);
    EXPECT_EQ(apply(Op::kPROD, big, small).ints(), (std::vector<int64_t>{6'000'000'000, int64Min, -14}));
    EXPECT_EQ(apply(Op::kDIV, big, small).ints(), (std::vector<int64_t>{1'500'000'000, int64Min, -3}));
    EXPECT_EQ(apply(Op::kFLOOR_DIV, big, small).ints(), (std::vector<int64_t>{1'500'000'000, int64Min, -4}));
}

TEST(ElementWise, IntegerPower)
{
    HostTensor const base = fromInts({6}, {2, 3, -2, 1, -1, 2}, DataType::kINT32);
    HostTensor const exponent = fromInts({6}, {10, 0, 3, -4, -3, -1}, DataType::kINT32);
    EXPECT_EQ(apply(Op::kPOW, base, exponent).ints(), (std::vector<int64_t>{1024, 1, -8, 1, -1, 0}));
}

TEST(ElementWise, BoolLogic)
{
    HostTensor const a = fromInts({4}, {0, 0, 1, 1}, DataType::kBOOL);
    HostTensor const b = fromInts({4}, {0, 1, 0, 1}, DataType::kBOOL);
    EXPECT_EQ(apply(Op::kAND, a, b).ints(), (std::vector<int64_t>{0, 0, 0, 1}));
    EXPECT_EQ(apply(Op::kOR, a, b).ints(), (std::vector<int64_t>{0, 1, 1, 1}));
    EXPECT_EQ(apply(Op::kXOR, a, b).ints(), (std::vector<int64_t>{0, 1, 1, 0}));
    EXPECT_EQ(apply(Op::kEQUAL, a, b).ints(), (std::vector<int64_t>{1, 0, 0, 1}));
    // Broadcast a single true.
    EXPECT_EQ(apply(Op::kAND, a, fromInts({1}, {1}, DataType::kBOOL)).ints(), (std::vector<int64_t>{0, 0, 1, 1}));
}

TEST(ElementWise, TypeRules)
{
    EXPECT_THROW(elementWiseOutputType(Op::kAND, DataType::kFLOAT), std::invalid_argument);
    EXPECT_THROW(elementWiseOutputType(Op::kSUM, DataType::kBOOL), std::invalid_argument);
    EXPECT_EQ(elementWiseOutputType(Op::kLESS, DataType::kHALF), DataType::kBOOL);
    EXPECT_EQ(elementWiseOutputType(Op::kPOW, DataType::kINT64), DataType::kINT64);
    HostTensor const f = fromFloats({1}, {1});
    HostTensor const i = fromInts({1}, {1}, DataType::kINT32);
    HostTensor output = zeros({1});
    EXPECT_THROW(
        runElementWise(operation(Op::kSUM), f.constView(), i.constView(), output.view()), std::invalid_argument);
    HostTensor boolOutput = zeros({1}, DataType::kBOOL);
    EXPECT_THROW(
        runElementWise(operation(Op::kSUM), f.constView(), f.constView(), boolOutput.view()), std::invalid_argument);
}

TEST(ElementWise, HalfStorageRoundsTheFloatResult)
{
    // 1 + 2^-11 is a tie in FP16 (rounds to 1); 0.1 * 3 and 1 / 3 are inexact.
    std::vector<float> const av{1.0F, 0.1F, 1.0F, 65504.0F};
    std::vector<float> const bv{1.0F / 2048.0F, 3.0F, 3.0F, 65504.0F};
    HostTensor const a = fromFloats({4}, av, DataType::kHALF);
    HostTensor const b = fromFloats({4}, bv, DataType::kHALF);
    for (Op op : {Op::kSUM, Op::kPROD, Op::kDIV})
    {
        HostTensor const half = apply(op, a, b);
        EXPECT_EQ(half.type, DataType::kHALF);
        expectHalfRoundingOf(half, apply(op, fromFloats({4}, a.floats()), fromFloats({4}, b.floats())));
    }
    EXPECT_EQ(apply(Op::kSUM, a, b).floats()[3], std::numeric_limits<float>::infinity()); // overflows FP16
}

TEST(ElementWise, EmptyOutputTouchesNoMemory)
{
    HostTensor const a = zeros({0, 3});
    HostTensor const b = fromFloats({1, 3}, {1, 2, 3});
    HostTensor const sum = apply(Op::kSUM, a, b);
    EXPECT_EQ(sum.shape, (Shape{0, 3}));
    EXPECT_THROW(elementWiseOutputShape({2, 3}, {3, 3}), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
