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

using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::TopKOperation;

network::TopKParams selecting(TopKOperation operation, uint32_t reduceAxes)
{
    network::TopKParams params;
    params.operation = operation;
    params.reduceAxes = reduceAxes;
    return params;
}

std::pair<HostTensor, HostTensor> run(
    HostTensor const& input, network::TopKParams const& params, int64_t k, DataType indexType = DataType::kINT32)
{
    Shape const shape = topKOutputShape(input.shape, params, k);
    HostTensor values = zeros(shape, input.type);
    HostTensor indices = zeros(shape, indexType);
    topK(input.constView(), values.view(), indices.view(), params, k);
    return {values, indices};
}

// Rows [1, 3, 3, 2] and [5, 4, 6, 4]: both have ties.
HostTensor const kRows = fromFloats({2, 4}, {1, 3, 3, 2, 5, 4, 6, 4});

TEST(TopK, MaxAlongLastAxisTiesTakeLowerIndexFirst)
{
    auto const [values, indices] = run(kRows, selecting(TopKOperation::kMAX, 0b10), 2);
    EXPECT_EQ(values.shape, (Shape{2, 2}));
    EXPECT_EQ(values.floats(), (std::vector<float>{3, 3, 6, 5}));
    EXPECT_EQ(indices.elements<int32_t>(), (std::vector<int32_t>{1, 2, 2, 0}));
}

TEST(TopK, MinWithInt64Indices)
{
    auto const [values, indices] = run(kRows, selecting(TopKOperation::kMIN, 0b10), 3, DataType::kINT64);
    EXPECT_EQ(values.floats(), (std::vector<float>{1, 2, 3, 4, 4, 5}));
    EXPECT_EQ(indices.elements<int64_t>(), (std::vector<int64_t>{0, 3, 1, 1, 3, 0}));
}

TEST(TopK, ArgMaxAlongOuterAxis)
{
    HostTensor const input = fromInts({3, 2}, {1, 6, 3, 2, 2, 9}, DataType::kINT32);
    auto const [values, indices] = run(input, selecting(TopKOperation::kMAX, 0b01), 1);
    EXPECT_EQ(values.shape, (Shape{1, 2}));
    EXPECT_EQ(values.elements<int32_t>(), (std::vector<int32_t>{3, 9}));
    EXPECT_EQ(indices.elements<int32_t>(), (std::vector<int32_t>{1, 2}));
    auto const [minValues, minIndices] = run(input, selecting(TopKOperation::kMIN, 0b01), 1);
    EXPECT_EQ(minValues.elements<int32_t>(), (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(minIndices.elements<int32_t>(), (std::vector<int32_t>{0, 1}));
}

TEST(TopK, NanRanksAboveEveryNumber)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    HostTensor const input = fromFloats({4}, {1, nan, 7, -1});
    auto const [maxValues, maxIndices] = run(input, selecting(TopKOperation::kMAX, 1), 2);
    EXPECT_EQ(maxIndices.elements<int32_t>(), (std::vector<int32_t>{1, 2}));
    auto const [minValues, minIndices] = run(input, selecting(TopKOperation::kMIN, 1), 4);
    EXPECT_EQ(minIndices.elements<int32_t>(), (std::vector<int32_t>{3, 0, 2, 1}));
}

TEST(TopK, Fp16ValuesAreCopiedExactly)
{
    HostTensor const input = fromFloats({3}, {0.1f, 0.3f, 0.2f}, DataType::kHALF);
    auto const [values, indices] = run(input, selecting(TopKOperation::kMAX, 1), 2);
    std::vector<uint16_t> const inputBits = input.elements<uint16_t>();
    EXPECT_EQ(values.elements<uint16_t>(), (std::vector<uint16_t>{inputBits[1], inputBits[2]}));
    EXPECT_EQ(indices.elements<int32_t>(), (std::vector<int32_t>{1, 2}));
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
    HostTensor const input = fromFloats({1, n}, data);
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        std::vector<int64_t> order(static_cast<size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            float const x = data[static_cast<size_t>(a)];
            float const y = data[static_cast<size_t>(b)];
            return operation == TopKOperation::kMAX ? x > y : x < y;
        });
        order.resize(static_cast<size_t>(k));
        auto const [values, indices] = run(input, selecting(operation, 0b10), k, DataType::kINT64);
        ASSERT_EQ(indices.elements<int64_t>(), order);
        std::vector<float> const selected = values.floats();
        for (int64_t j = 0; j < k; ++j)
        {
            ASSERT_EQ(selected[static_cast<size_t>(j)], data[static_cast<size_t>(order[static_cast<size_t>(j)])]);
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
