#include "backend/cpu/kernels/nn/unary.h"
#include "backend/shared/unary_types.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using backend::unaryOutputType;
using Op = nvinfer1::UnaryOperation;

HostTensor apply(Op op, HostTensor const& input)
{
    network::UnaryParams params;
    params.operation = op;
    HostTensor output = zeros(input.shape, unaryOutputType(op, input.type));
    runUnary(params, input.constView(), output.view());
    return output;
}

std::vector<float> applyFloat(Op op, std::vector<float> const& values)
{
    return apply(op, fromFloats({static_cast<int64_t>(values.size())}, values)).floats();
}

TEST(Unary, ExponentialsAndRoots)
{
    expectClose(applyFloat(Op::kEXP, {0, 1, -1}), {1, 2.7182818285F, 0.3678794412F}, 1e-5F);
    expectClose(applyFloat(Op::kLOG, {1, 2.7182818285F}), {0, 1}, 1e-5F);
    EXPECT_EQ(applyFloat(Op::kLOG, {0})[0], -std::numeric_limits<float>::infinity());
    expectClose(applyFloat(Op::kSQRT, {4, 0, 2}), {2, 0, 1.4142135624F}, 1e-5F);
    EXPECT_TRUE(std::isnan(applyFloat(Op::kSQRT, {-1})[0]));
    expectClose(applyFloat(Op::kRECIP, {4, -0.5F}), {0.25F, -2}, 0.0F);
    expectClose(applyFloat(Op::kERF, {0, 1, -1}), {0, 0.8427007929F, -0.8427007929F}, 1e-5F);
}

TEST(Unary, Trigonometry)
{
    float const pi = std::numbers::pi_v<float>;
    expectClose(applyFloat(Op::kSIN, {0, pi / 2}), {0, 1}, 1e-5F);
    expectClose(applyFloat(Op::kCOS, {0, pi}), {1, -1}, 1e-5F);
    expectClose(applyFloat(Op::kTAN, {0, pi / 4}), {0, 1}, 1e-5F);
    expectClose(applyFloat(Op::kSINH, {0, 1}), {0, 1.1752011936F}, 1e-5F);
    expectClose(applyFloat(Op::kCOSH, {0, 1}), {1, 1.5430806348F}, 1e-5F);
    expectClose(applyFloat(Op::kASIN, {0, 1}), {0, pi / 2}, 1e-5F);
    expectClose(applyFloat(Op::kACOS, {1, 0}), {0, pi / 2}, 1e-5F);
    expectClose(applyFloat(Op::kATAN, {0, 1}), {0, pi / 4}, 1e-5F);
    expectClose(applyFloat(Op::kASINH, {0, 1}), {0, 0.8813735870F}, 1e-5F);
    expectClose(applyFloat(Op::kACOSH, {1}), {0}, 1e-5F);
    expectClose(applyFloat(Op::kATANH, {0, 0.5F}), {0, 0.5493061443F}, 1e-5F);
}

TEST(Unary, SignsAndRounding)
{
    expectClose(applyFloat(Op::kABS, {-3, 0, 2}), {3, 0, 2}, 0.0F);
    expectClose(applyFloat(Op::kNEG, {-3, 0, 2}), {3, 0, -2}, 0.0F);
    expectClose(applyFloat(Op::kSIGN, {-3, 0, 2}), {-1, 0, 1}, 0.0F);
    expectClose(applyFloat(Op::kCEIL, {-1.5F, 1.2F, 2}), {-1, 2, 2}, 0.0F);
    expectClose(applyFloat(Op::kFLOOR, {-1.5F, 1.2F, 2}), {-2, 1, 2}, 0.0F);
    // Half to even, as ONNX Round.
    expectClose(applyFloat(Op::kROUND, {0.5F, 1.5F, 2.5F, -0.5F, -1.5F, -2.5F, 2.4F, 2.6F, -2.6F}),
        {0, 2, 2, 0, -2, -2, 2, 3, -3}, 0.0F);
    float const big = 16777216.0F; // 2^24: already an integer
    EXPECT_EQ(applyFloat(Op::kROUND, {big})[0], big);
    EXPECT_TRUE(std::isnan(applyFloat(Op::kSIGN, {std::numeric_limits<float>::quiet_NaN()})[0]));
}

TEST(Unary, ClassificationProducesBool)
{
    float const inf = std::numeric_limits<float>::infinity();
    float const nan = std::numeric_limits<float>::quiet_NaN();
    HostTensor const input = fromFloats({4}, {inf, -inf, 1, nan});
    HostTensor const isInf = apply(Op::kISINF, input);
    EXPECT_EQ(isInf.type, DataType::kBOOL);
    EXPECT_EQ(isInf.ints(), (std::vector<int64_t>{1, 1, 0, 0}));
    EXPECT_EQ(apply(Op::kISNAN, input).ints(), (std::vector<int64_t>{0, 0, 0, 1}));
    // FP16 keeps infinities and NaN.
    EXPECT_EQ(apply(Op::kISNAN, fromFloats({4}, {inf, -inf, 1, nan}, DataType::kHALF)).ints(),
        (std::vector<int64_t>{0, 0, 0, 1}));
}

TEST(Unary, BoolAndIntegerPaths)
{
    EXPECT_EQ(apply(Op::kNOT, fromInts({2}, {0, 1}, DataType::kBOOL)).ints(), (std::vector<int64_t>{1, 0}));
    int64_t const int32Min = std::numeric_limits<int32_t>::min();
    HostTensor const i32 = fromInts({4}, {-5, 0, 7, int32Min}, DataType::kINT32);
    EXPECT_EQ(apply(Op::kABS, i32).ints(), (std::vector<int64_t>{5, 0, 7, int32Min}));
    EXPECT_EQ(apply(Op::kNEG, i32).ints(), (std::vector<int64_t>{5, 0, -7, int32Min}));
    EXPECT_EQ(apply(Op::kSIGN, i32).ints(), (std::vector<int64_t>{-1, 0, 1, -1}));
    HostTensor const i64 = fromInts({2}, {-5'000'000'000, 3}, DataType::kINT64);
    EXPECT_EQ(apply(Op::kABS, i64).ints(), (std::vector<int64_t>{5'000'000'000, 3}));
    EXPECT_THROW(unaryOutputType(Op::kNOT, DataType::kFLOAT), std::invalid_argument);
    EXPECT_THROW(unaryOutputType(Op::kEXP, DataType::kINT32), std::invalid_argument);
    EXPECT_THROW(unaryOutputType(Op::kABS, DataType::kBOOL), std::invalid_argument);
}

TEST(Unary, HalfStorageRoundsTheFloatResult)
{
    std::vector<float> const values{0.1F, 0.7F, 1.3F, 2.9F, 4.4F};
    HostTensor const half = fromFloats({5}, values, DataType::kHALF);
    for (Op op : {Op::kEXP, Op::kLOG, Op::kSQRT, Op::kSIN, Op::kERF})
    {
        expectHalfRoundingOf(apply(op, half), apply(op, fromFloats({5}, half.floats())));
    }
}

TEST(Unary, EmptyTouchesNoMemory)
{
    HostTensor const empty = zeros({0});
    EXPECT_NO_THROW(apply(Op::kEXP, empty));
    HostTensor const emptyBool = zeros({2, 0}, DataType::kBOOL);
    EXPECT_NO_THROW(apply(Op::kNOT, emptyBool));
}

} // namespace
} // namespace kiln::cpu::test
