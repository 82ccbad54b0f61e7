#include "backend/cpu/kernels/tensor/reduce.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::ReduceOperation;

// [[1, 2, 3], [4, 5, 6]]
HostTensor const kInput = fromFloats({2, 3}, {1, 2, 3, 4, 5, 6});

network::ReduceParams reduction(ReduceOperation operation, uint32_t axes, bool keepDimensions = false)
{
    network::ReduceParams params;
    params.operation = operation;
    params.reduceAxes = axes;
    params.keepDimensions = keepDimensions;
    return params;
}

HostTensor run(HostTensor const& input, network::ReduceParams const& params)
{
    HostTensor out = zeros(reduceOutputShape(input.shape, params), input.type);
    reduce(input.constView(), out.view(), params);
    return out;
}

struct ReduceCase
{
    ReduceOperation operation;
    uint32_t axes;
    Shape keptShape;
    Shape droppedShape;
    std::vector<float> expected;
};

TEST(Reduce, EveryOperationWithAndWithoutKeepDimensions)
{
    std::vector<ReduceCase> const cases{
        {ReduceOperation::kSUM, 0b10, {2, 1}, {2}, {6, 15}},
        {ReduceOperation::kSUM, 0b01, {1, 3}, {3}, {5, 7, 9}},
        {ReduceOperation::kPROD, 0b01, {1, 3}, {3}, {4, 10, 18}},
        {ReduceOperation::kPROD, 0b11, {1, 1}, {}, {720}},
        {ReduceOperation::kMAX, 0b10, {2, 1}, {2}, {3, 6}},
        {ReduceOperation::kMAX, 0b11, {1, 1}, {}, {6}},
        {ReduceOperation::kMIN, 0b10, {2, 1}, {2}, {1, 4}},
        {ReduceOperation::kMIN, 0b01, {1, 3}, {3}, {1, 2, 3}},
        {ReduceOperation::kAVG, 0b01, {1, 3}, {3}, {2.5f, 3.5f, 4.5f}},
        {ReduceOperation::kAVG, 0b11, {1, 1}, {}, {3.5f}},
        {ReduceOperation::kSUM, 0b00, {2, 3}, {2, 3}, {1, 2, 3, 4, 5, 6}},
    };
    for (ReduceCase const& c : cases)
    {
        for (bool keep : {true, false})
        {
            network::ReduceParams const params = reduction(c.operation, c.axes, keep);
            HostTensor const out = run(kInput, params);
            EXPECT_EQ(out.shape, keep ? c.keptShape : c.droppedShape);
            EXPECT_EQ(out.floats(), c.expected) << "operation " << static_cast<int>(c.operation) << " axes " << c.axes;
        }
    }
}

TEST(Reduce, MiddleAxis)
{
    // [[[0, 1], [2, 3]], [[4, 5], [6, 7]]] summed over dim 1.
    HostTensor const input = fromFloats({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(run(input, reduction(ReduceOperation::kSUM, 0b010, false)).floats(), (std::vector<float>{2, 4, 10, 12}));
    EXPECT_EQ(run(input, reduction(ReduceOperation::kMAX, 0b101, true)).floats(), (std::vector<float>{5, 7}));
}

TEST(Reduce, Integers)
{
    HostTensor const i32 = fromInts({2, 3}, {1, -2, 3, 4, 5, -6}, DataType::kINT32);
    EXPECT_EQ(
        run(i32, reduction(ReduceOperation::kSUM, 0b10, false)).elements<int32_t>(), (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(
        run(i32, reduction(ReduceOperation::kPROD, 0b10, false)).elements<int32_t>(), (std::vector<int32_t>{-6, -120}));
    EXPECT_EQ(
        run(i32, reduction(ReduceOperation::kMAX, 0b01, false)).elements<int32_t>(), (std::vector<int32_t>{4, 5, 3}));
    EXPECT_EQ(
        run(i32, reduction(ReduceOperation::kMIN, 0b01, false)).elements<int32_t>(), (std::vector<int32_t>{1, -2, -6}));
    EXPECT_EQ(
        run(i32, reduction(ReduceOperation::kAVG, 0b10, false)).elements<int32_t>(), (std::vector<int32_t>{0, 1}));
    // Beyond 2^53: exact in int64, where a double accumulator would round.
    int64_t const big = (int64_t{1} << 60) + 1;
    HostTensor const i64 = fromInts({2}, {big, 2}, DataType::kINT64);
    EXPECT_EQ(
        run(i64, reduction(ReduceOperation::kSUM, 0b1, false)).elements<int64_t>(), (std::vector<int64_t>{big + 2}));
    EXPECT_EQ(run(i64, reduction(ReduceOperation::kMAX, 0b1, false)).elements<int64_t>(), (std::vector<int64_t>{big}));
}

TEST(Reduce, NanPropagatesThroughMaxAndMin)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    HostTensor const input = fromFloats({3}, {1, nan, 3});
    EXPECT_TRUE(std::isnan(run(input, reduction(ReduceOperation::kMAX, 1, false)).floats()[0]));
    EXPECT_TRUE(std::isnan(run(input, reduction(ReduceOperation::kMIN, 1, false)).floats()[0]));
}

TEST(Reduce, Fp16StorageRoundsThroughHalf)
{
    HostTensor const input = fromFloats({2}, {0.1f, 0.2f}, DataType::kHALF);
    HostTensor const out = run(input, reduction(ReduceOperation::kAVG, 1, false));
    double const exact = (static_cast<double>(input.floats()[0]) + input.floats()[1]) / 2.0;
    EXPECT_EQ(out.elements<uint16_t>()[0], floatToHalfBits(static_cast<float>(exact)));
}

TEST(Reduce, EmptyReductionGivesIdentity)
{
    HostTensor const input = fromFloats({2, 0}, {});
    float const inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(run(input, reduction(ReduceOperation::kSUM, 0b10, false)).floats(), (std::vector<float>{0, 0}));
    EXPECT_EQ(run(input, reduction(ReduceOperation::kPROD, 0b10, false)).floats(), (std::vector<float>{1, 1}));
    EXPECT_EQ(run(input, reduction(ReduceOperation::kMAX, 0b10, false)).floats(), (std::vector<float>{-inf, -inf}));
    EXPECT_EQ(run(input, reduction(ReduceOperation::kMIN, 0b10, false)).floats(), (std::vector<float>{inf, inf}));
    EXPECT_TRUE(std::isnan(run(input, reduction(ReduceOperation::kAVG, 0b10, false)).floats()[0]));
    HostTensor const ints = fromInts({0, 2}, {}, DataType::kINT32);
    EXPECT_EQ(run(ints, reduction(ReduceOperation::kMAX, 0b01, false)).elements<int32_t>(),
        (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min()}));
    // An empty output: nothing touched.
    reduce(ConstTensorView(DataType::kFLOAT, {0, 3}, nullptr), test::emptyView({0}),
        reduction(ReduceOperation::kSUM, 0b10));
}

TEST(Reduce, RejectsBadArguments)
{
    EXPECT_THROW(reduceOutputShape({2, 3}, reduction(ReduceOperation::kSUM, 0b100)), std::invalid_argument);
    HostTensor out = zeros({3});
    EXPECT_THROW(reduce(kInput.constView(), out.view(), reduction(ReduceOperation::kSUM, 0b10)), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
