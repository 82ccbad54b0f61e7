// Fill (Range, ConstantOfShape), one-hot and cumulative sum.
#include "backend/cpu/kernels/tensor/cumulative.h"
#include "backend/cpu/kernels/tensor/fill.h"
#include "backend/cpu/kernels/tensor/one_hot.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::filledWith;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;

network::FillParams linspace(double alpha, double beta = 1.0)
{
    network::FillParams params;
    params.operation = nvinfer1::FillOperation::kLINSPACE;
    params.alpha = alpha;
    params.beta = beta;
    return params;
}

//! A fill's inputs with input 2, one delta per output dim, as the only one given.
LayerInputs betaInput(ConstTensorView const& deltas)
{
    return {{}, {}, deltas};
}

network::OneHotParams oneHotAxis(int32_t axis)
{
    network::OneHotParams params;
    params.axis = axis;
    return params;
}

network::CumulativeParams runningSum(bool exclusive, bool reverse)
{
    network::CumulativeParams params;
    params.operation = nvinfer1::CumulativeOperation::kSUM;
    params.exclusive = exclusive;
    params.reverse = reverse;
    return params;
}

TEST(Fill, LinspaceOneAndTwoDims)
{
    HostTensor row = zeros({4});
    fill({}, row.view(), linspace(2.0, 3.0));
    EXPECT_EQ(row.floats(), (std::vector<float>{2, 5, 8, 11}));
    HostTensor grid = zeros({2, 3});
    HostTensor const gridDeltas = fromFloats({2}, {10.0f, 1.0f});
    fill(betaInput(gridDeltas.constView()), grid.view(), linspace(1.0));
    EXPECT_EQ(grid.floats(), (std::vector<float>{1, 2, 3, 11, 12, 13}));
    // Range(10, 0, -3) in INT64.
    HostTensor ints = zeros({rangeLength(int64_t{10}, int64_t{0}, int64_t{-3})}, DataType::kINT64);
    fill({}, ints.view(), linspace(10.0, -3.0));
    EXPECT_EQ(ints.elements<int64_t>(), (std::vector<int64_t>{10, 7, 4, 1}));
    HostTensor half = zeros({2}, DataType::kHALF);
    fill({}, half.view(), linspace(0.1, 0.1));
    EXPECT_EQ(half.elements<uint16_t>(), (std::vector<uint16_t>{floatToHalfBits(0.1f), floatToHalfBits(0.2f)}));
}

TEST(Fill, RangeLengthAndErrors)
{
    EXPECT_EQ(rangeLength(int64_t{0}, int64_t{10}, int64_t{3}), 4);
    EXPECT_EQ(rangeLength(int64_t{0}, int64_t{9}, int64_t{3}), 3);
    EXPECT_EQ(rangeLength(int64_t{5}, int64_t{1}, int64_t{2}), 0);
    EXPECT_EQ(rangeLength(1.0, 2.0, 0.3), 4);
    EXPECT_THROW(rangeLength(0.0, 1.0, 0.0), std::invalid_argument);
    HostTensor out = zeros({2, 2});
    EXPECT_THROW(fill({}, out.view(), linspace(0.0, 1.0)), std::invalid_argument);
    network::FillParams uniform = linspace(0.0);
    uniform.operation = nvinfer1::FillOperation::kRANDOM_UNIFORM;
    HostTensor const ones = fromFloats({2}, {1.0f, 1.0f});
    EXPECT_THROW(fill(betaInput(ones.constView()), out.view(), uniform), std::invalid_argument);
    fill({}, test::emptyView({0}), {});
}

TEST(Fill, ConstantOfShape)
{
    HostTensor const value = fromInts({1}, {7}, DataType::kINT64);
    HostTensor out = zeros({2, 2}, DataType::kINT64);
    fillWithValue(out.view(), value.constView());
    EXPECT_EQ(out.elements<int64_t>(), (std::vector<int64_t>{7, 7, 7, 7}));
    fillWithValue(test::emptyView({0}, DataType::kINT64), value.constView());
}

TEST(OneHot, LastAndFirstAxis)
{
    HostTensor const indices = fromInts({3}, {0, -1, 5}, DataType::kINT64);
    HostTensor const values = fromFloats({2}, {0, 1});
    EXPECT_EQ(oneHotOutputShape(indices.shape, 3, {}), (Shape{3, 3}));
    HostTensor last = filledWith<float>({3, 3}, -9.0f);
    oneHot(indices.constView(), values.constView(), 3, last.view(), {});
    EXPECT_EQ(last.floats(), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0}));
    HostTensor first = filledWith<float>({3, 3}, -9.0f);
    oneHot(indices.constView(), values.constView(), 3, first.view(), oneHotAxis(0));
    EXPECT_EQ(first.floats(), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0}));
    // A middle axis, INT32 indices and INT8 values.
    HostTensor const matrix = fromInts({2, 2}, {1, 0, 0, 1}, DataType::kINT32);
    HostTensor const onOff = fromInts({2}, {-1, 5}, DataType::kINT8);
    HostTensor middle = zeros(oneHotOutputShape(matrix.shape, 2, oneHotAxis(1)), DataType::kINT8);
    EXPECT_EQ(middle.shape, (Shape{2, 2, 2}));
    oneHot(matrix.constView(), onOff.constView(), 2, middle.view(), oneHotAxis(1));
    EXPECT_EQ(middle.elements<int8_t>(), (std::vector<int8_t>{-1, 5, 5, -1, 5, -1, -1, 5}));
    EXPECT_THROW(oneHotOutputShape({2}, 3, oneHotAxis(2)), std::invalid_argument);
}

TEST(OneHot, ADepthWhoseOutputSizeWrapsIsRefused)
{
    // The depth is read from a tensor at run time: 3 x 2^62 elements wrap to a negative count, which the kernel would
    // have taken for a real one and written past its output.
    int64_t const depth = int64_t{1} << 62;
    EXPECT_THROW(oneHotOutputShape({3}, depth, {}), std::invalid_argument);
    EXPECT_THROW(oneHotOutputShape({2, 3}, depth, oneHotAxis(1)), std::invalid_argument);
    HostTensor const indices = fromInts({3}, {0, 1, 2}, DataType::kINT64);
    HostTensor const values = fromFloats({2}, {0, 1});
    HostTensor output = zeros({3, 4}, DataType::kFLOAT);
    TensorView claimed = output.view();
    claimed.shape = {3, depth};
    EXPECT_THROW(oneHot(indices.constView(), values.constView(), depth, claimed, {}), std::invalid_argument);
}

TEST(Cumulative, ExclusiveAndReverse)
{
    HostTensor const input = fromFloats({4}, {1, 2, 3, 4});
    auto run = [&](bool exclusive, bool reverse) {
        HostTensor out = zeros({4});
        cumulative(input.constView(), out.view(), runningSum(exclusive, reverse), 0);
        return out.floats();
    };
    EXPECT_EQ(run(false, false), (std::vector<float>{1, 3, 6, 10}));
    EXPECT_EQ(run(true, false), (std::vector<float>{0, 1, 3, 6}));
    EXPECT_EQ(run(false, true), (std::vector<float>{10, 9, 7, 4}));
    EXPECT_EQ(run(true, true), (std::vector<float>{9, 7, 4, 0}));
}

TEST(Cumulative, OuterAxisIntegersAndHalf)
{
    HostTensor const input = fromInts({2, 3}, {1, 2, 3, 4, 5, 6}, DataType::kINT32);
    HostTensor out = zeros({2, 3}, DataType::kINT32);
    cumulative(input.constView(), out.view(), runningSum(false, false), -2);
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
    HostTensor const half = fromFloats({3}, {0.1f, 0.2f, 0.3f}, DataType::kHALF);
    HostTensor halfOut = zeros({3}, DataType::kHALF);
    cumulative(half.constView(), halfOut.view(), {}, 0);
    std::vector<float> const h = half.floats();
    EXPECT_EQ(
        halfOut.elements<uint16_t>()[2], floatToHalfBits(static_cast<float>(static_cast<double>(h[0]) + h[1] + h[2])));
    cumulative(ConstTensorView(DataType::kFLOAT, {0, 3}, nullptr), test::emptyView({0, 3}), {}, 0);
}

} // namespace
} // namespace kiln::cpu
