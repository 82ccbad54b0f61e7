#include "backend/cpu/kernels/tensor/top_k.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using nvinfer1::TopKOperation;
using nvinfer1::DataType;
using test::Tensor;

network::TopKParams selecting(TopKOperation operation, uint32_t reduceAxes)
{
    network::TopKParams params;
    params.operation = operation;
    params.reduceAxes = reduceAxes;
    return params;
}

template <typename T, typename I = int32_t>
std::pair<Tensor<T>, Tensor<I>> run(Tensor<T> const& input, network::TopKParams const& params, int64_t k)
{
    Shape const shape = topKOutputShape(input.shape, params, k);
    auto values = Tensor<T>::zeros(shape, input.type);
    auto indices = Tensor<I>::zeros(shape);
    topK(input.cview(), values.view(), indices.view(), params, k);
    return {values, indices};
}

// Rows [1, 3, 3, 2] and [5, 4, 6, 4]: both have ties.
Tensor<float> const kRows({2, 4}, {1, 3, 3, 2, 5, 4, 6, 4});

TEST(TopK, MaxAlongLastAxisTiesTakeLowerIndexFirst)
{
    auto const [values, indices] = run(kRows, selecting(TopKOperation::kMAX, 0b10), 2);
    EXPECT_EQ(values.shape, (Shape{2, 2}));
    EXPECT_EQ(values.values, (std::vector<float>{3, 3, 6, 5}));
    EXPECT_EQ(indices.values, (std::vector<int32_t>{1, 2, 2, 0}));
}

TEST(TopK, MinWithInt64Indices)
{
    auto const [values, indices] = run<float, int64_t>(kRows, selecting(TopKOperation::kMIN, 0b10), 3);
    EXPECT_EQ(values.values, (std::vector<float>{1, 2, 3, 4, 4, 5}));
    EXPECT_EQ(indices.values, (std::vector<int64_t>{0, 3, 1, 1, 3, 0}));
}

TEST(TopK, ArgMaxAlongOuterAxis)
{
    Tensor<int32_t> const input({3, 2}, {1, 6, 3, 2, 2, 9});
    auto const [values, indices] = run(input, selecting(TopKOperation::kMAX, 0b01), 1);
    EXPECT_EQ(values.shape, (Shape{1, 2}));
    EXPECT_EQ(values.values, (std::vector<int32_t>{3, 9}));
    EXPECT_EQ(indices.values, (std::vector<int32_t>{1, 2}));
    auto const [minValues, minIndices] = run(input, selecting(TopKOperation::kMIN, 0b01), 1);
    EXPECT_EQ(minValues.values, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(minIndices.values, (std::vector<int32_t>{0, 1}));
}

TEST(TopK, NanRanksAboveEveryNumber)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    Tensor<float> const input({4}, {1, nan, 7, -1});
    auto const [maxValues, maxIndices] = run(input, selecting(TopKOperation::kMAX, 1), 2);
    EXPECT_EQ(maxIndices.values, (std::vector<int32_t>{1, 2}));
    auto const [minValues, minIndices] = run(input, selecting(TopKOperation::kMIN, 1), 4);
    EXPECT_EQ(minIndices.values, (std::vector<int32_t>{3, 0, 2, 1}));
}

TEST(TopK, Fp16ValuesAreCopiedExactly)
{
    Tensor<uint16_t> const input({3}, test::toHalf({0.1f, 0.3f, 0.2f}));
    auto const [values, indices] = run(input, selecting(TopKOperation::kMAX, 1), 2);
    EXPECT_EQ(values.values, (std::vector<uint16_t>{input.values[1], input.values[2]}));
    EXPECT_EQ(indices.values, (std::vector<int32_t>{1, 2}));
}

TEST(TopK, KBeyondTensorRtsCapOnALongRowWithTies)
{
    // 6000 values with many repeats, k = 5000: compare with a stable sort of the indices.
    int64_t const n = 6000;
    int64_t const k = 5000;
    std::vector<float> data(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
    {
        data[static_cast<size_t>(i)] = static_cast<float>((i * 7919) % 1000) - 500.0f;
    }
    Tensor<float> const input({1, n}, data);
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        std::vector<int64_t> order(static_cast<size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b)
            {
                float const x = data[static_cast<size_t>(a)];
                float const y = data[static_cast<size_t>(b)];
                return operation == TopKOperation::kMAX ? x > y : x < y;
            });
        order.resize(static_cast<size_t>(k));
        auto const [values, indices] = run<float, int64_t>(input, selecting(operation, 0b10), k);
        ASSERT_EQ(indices.values, order);
        for (int64_t j = 0; j < k; ++j)
        {
            ASSERT_EQ(values.values[static_cast<size_t>(j)], data[static_cast<size_t>(order[static_cast<size_t>(j)])]);
        }
    }
}

TEST(TopK, EmptyAndInvalid)
{
    auto const [values, indices] = run(kRows, selecting(TopKOperation::kMAX, 0b10), 0);
    EXPECT_EQ(values.shape, (Shape{2, 0}));
    topK(ConstTensorView(DataType::kFLOAT, {0, 4}, nullptr), test::emptyView({0, 2}),
        test::emptyView({0, 2}, DataType::kINT32), selecting(TopKOperation::kMAX, 0b10), 2);
    EXPECT_THROW(topKOutputShape(kRows.shape, selecting(TopKOperation::kMAX, 0b10), 5), std::invalid_argument);
    EXPECT_THROW(topKOutputShape(kRows.shape, selecting(TopKOperation::kMAX, 0b11), 1), std::invalid_argument);
    EXPECT_THROW(topKOutputShape(kRows.shape, selecting(TopKOperation::kMAX, 0b100), 1), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
