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

using nvinfer1::DataType;
using test::Tensor;

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
    auto row = Tensor<float>::zeros({4});
    fill({}, row.view(), linspace(2.0, 3.0));
    EXPECT_EQ(row.values, (std::vector<float>{2, 5, 8, 11}));
    auto grid = Tensor<float>::zeros({2, 3});
    Tensor<float> const gridDeltas({2}, {10.0f, 1.0f});
    fill(betaInput(gridDeltas.cview()), grid.view(), linspace(1.0));
    EXPECT_EQ(grid.values, (std::vector<float>{1, 2, 3, 11, 12, 13}));
    // Range(10, 0, -3) in INT64.
    auto ints = Tensor<int64_t>::zeros({rangeLength(int64_t{10}, int64_t{0}, int64_t{-3})});
    fill({}, ints.view(), linspace(10.0, -3.0));
    EXPECT_EQ(ints.values, (std::vector<int64_t>{10, 7, 4, 1}));
    auto half = Tensor<uint16_t>::zeros({2});
    fill({}, half.view(), linspace(0.1, 0.1));
    EXPECT_EQ(half.values, (std::vector<uint16_t>{floatToHalfBits(0.1f), floatToHalfBits(0.2f)}));
}

TEST(Fill, RangeLengthAndErrors)
{
    EXPECT_EQ(rangeLength(int64_t{0}, int64_t{10}, int64_t{3}), 4);
    EXPECT_EQ(rangeLength(int64_t{0}, int64_t{9}, int64_t{3}), 3);
    EXPECT_EQ(rangeLength(int64_t{5}, int64_t{1}, int64_t{2}), 0);
    EXPECT_EQ(rangeLength(1.0, 2.0, 0.3), 4);
    EXPECT_THROW(rangeLength(0.0, 1.0, 0.0), std::invalid_argument);
    auto out = Tensor<float>::zeros({2, 2});
    EXPECT_THROW(fill({}, out.view(), linspace(0.0, 1.0)), std::invalid_argument);
    network::FillParams uniform = linspace(0.0);
    uniform.operation = nvinfer1::FillOperation::kRANDOM_UNIFORM;
    Tensor<float> const ones({2}, {1.0f, 1.0f});
    EXPECT_THROW(fill(betaInput(ones.cview()), out.view(), uniform), std::invalid_argument);
    fill({}, test::emptyView({0}), {});
}

TEST(Fill, ConstantOfShape)
{
    Tensor<int64_t> const value({1}, {7});
    auto out = Tensor<int64_t>::zeros({2, 2});
    fillWithValue(out.view(), value.cview());
    EXPECT_EQ(out.values, (std::vector<int64_t>{7, 7, 7, 7}));
    fillWithValue(test::emptyView({0}, DataType::kINT64), value.cview());
}

TEST(OneHot, LastAndFirstAxis)
{
    Tensor<int64_t> const indices({3}, {0, -1, 5});
    Tensor<float> const values({2}, {0, 1});
    EXPECT_EQ(oneHotOutputShape(indices.shape, 3, {}), (Shape{3, 3}));
    auto last = Tensor<float>::zeros({3, 3}, DataType::kFLOAT, -9.0f);
    oneHot(indices.cview(), values.cview(), 3, last.view(), {});
    EXPECT_EQ(last.values, (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0}));
    auto first = Tensor<float>::zeros({3, 3}, DataType::kFLOAT, -9.0f);
    oneHot(indices.cview(), values.cview(), 3, first.view(), oneHotAxis(0));
    EXPECT_EQ(first.values, (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0}));
    // A middle axis, INT32 indices and INT8 values.
    Tensor<int32_t> const matrix({2, 2}, {1, 0, 0, 1});
    Tensor<int8_t> const onOff({2}, {-1, 5});
    auto middle = Tensor<int8_t>::zeros(oneHotOutputShape(matrix.shape, 2, oneHotAxis(1)));
    EXPECT_EQ(middle.shape, (Shape{2, 2, 2}));
    oneHot(matrix.cview(), onOff.cview(), 2, middle.view(), oneHotAxis(1));
    EXPECT_EQ(middle.values, (std::vector<int8_t>{-1, 5, 5, -1, 5, -1, -1, 5}));
    EXPECT_THROW(oneHotOutputShape({2}, 3, oneHotAxis(2)), std::invalid_argument);
}

TEST(Cumulative, ExclusiveAndReverse)
{
    Tensor<float> const input({4}, {1, 2, 3, 4});
    auto run = [&](bool exclusive, bool reverse)
    {
        auto out = Tensor<float>::zeros({4});
        cumulative(input.cview(), out.view(), runningSum(exclusive, reverse), 0);
        return out.values;
    };
    EXPECT_EQ(run(false, false), (std::vector<float>{1, 3, 6, 10}));
    EXPECT_EQ(run(true, false), (std::vector<float>{0, 1, 3, 6}));
    EXPECT_EQ(run(false, true), (std::vector<float>{10, 9, 7, 4}));
    EXPECT_EQ(run(true, true), (std::vector<float>{9, 7, 4, 0}));
}

TEST(Cumulative, OuterAxisIntegersAndHalf)
{
    Tensor<int32_t> const input({2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = Tensor<int32_t>::zeros({2, 3});
    cumulative(input.cview(), out.view(), runningSum(false, false), -2);
    EXPECT_EQ(out.values, (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
    Tensor<uint16_t> const half({3}, test::toHalf({0.1f, 0.2f, 0.3f}));
    auto halfOut = Tensor<uint16_t>::zeros({3});
    cumulative(half.cview(), halfOut.view(), {}, 0);
    std::vector<float> const h = test::fromHalf(half.values);
    EXPECT_EQ(halfOut.values[2], floatToHalfBits(static_cast<float>(static_cast<double>(h[0]) + h[1] + h[2])));
    cumulative(ConstTensorView(DataType::kFLOAT, {0, 3}, nullptr), test::emptyView({0, 3}), {}, 0);
}

} // namespace
} // namespace kiln::cpu
