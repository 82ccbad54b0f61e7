#include "backend/cpu/kernels/tensor/shuffle.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::dataTypeOf;
using kiln::test::fromElements;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;

//! The identity permutation with its leading entries replaced by `order`.
nvinfer1::Permutation permutation(std::vector<int32_t> const& order)
{
    nvinfer1::Permutation result = network::ShuffleParams::identityPermutation();
    std::copy(order.begin(), order.end(), result.order);
    return result;
}

//! A shuffle with a static reshape whose zeros are placeholders (TensorRT's default).
network::ShuffleParams shuffleParams(
    std::vector<int32_t> const& firstTranspose, Shape const& reshape, std::vector<int32_t> const& secondTranspose)
{
    network::ShuffleParams params;
    params.firstTranspose = permutation(firstTranspose);
    params.reshape = test::dimsOf(reshape);
    params.secondTranspose = permutation(secondTranspose);
    return params;
}

TEST(Transpose, MatrixForEveryElementSize)
{
    auto check = [](auto sample) {
        using T = decltype(sample);
        HostTensor const input = fromElements<T>({2, 3}, {0, 1, 2, 3, 4, 5});
        HostTensor out = zeros({3, 2}, dataTypeOf<T>());
        transpose(input.constView(), out.view(), {1, 0});
        EXPECT_EQ(out.elements<T>(), (std::vector<T>{0, 3, 1, 4, 2, 5}));
    };
    check(uint8_t{});
    check(uint16_t{});
    check(float{});
    check(int64_t{});
}

TEST(Transpose, OrderNamesTheInputDimOfEachOutputDim)
{
    // out[k, 0, i] = in[0, i, k] = 3 * i + k.
    HostTensor const input = fromInts({1, 2, 3}, {0, 1, 2, 3, 4, 5}, DataType::kINT32);
    EXPECT_EQ(transposeShape(input.shape, {2, 0, 1}), (Shape{3, 1, 2}));
    HostTensor out = zeros({3, 1, 2}, DataType::kINT32);
    transpose(input.constView(), out.view(), {2, 0, 1});
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
    EXPECT_THROW(transposeShape(input.shape, {0, 0, 1}), std::invalid_argument);
    EXPECT_THROW(transposeShape(input.shape, {0, 1}), std::invalid_argument);
    EXPECT_THROW(transposeShape(input.shape, {0, 1, 3}), std::invalid_argument);
}

TEST(ReshapeDimensions, PlaceholdersAndInference)
{
    Shape const input{2, 3, 4};
    EXPECT_EQ(resolveReshapeDimensions(input, {0, -1}, true), (Shape{2, 12}));
    EXPECT_EQ(resolveReshapeDimensions(input, {-1}, true), (Shape{24}));
    EXPECT_EQ(resolveReshapeDimensions(input, {0, 0, 0, 1}, true), (Shape{2, 3, 4, 1}));
    EXPECT_EQ(resolveReshapeDimensions(input, {-1, 0, 2}, true), (Shape{4, 3, 2}));
    EXPECT_EQ(resolveReshapeDimensions(input, {4, 6}, false), (Shape{4, 6}));
    // Without placeholders a 0 is a real extent: only valid when the input is empty too.
    EXPECT_EQ(resolveReshapeDimensions({0, 3}, {0, 7}, false), (Shape{0, 7}));
    EXPECT_EQ(resolveReshapeDimensions({0, 3}, {0, 3}, true), (Shape{0, 3}));
    EXPECT_EQ(resolveReshapeDimensions({}, {1, -1}, true), (Shape{1, 1}));
}

TEST(ReshapeDimensions, Errors)
{
    Shape const input{2, 3, 4};
    EXPECT_THROW(resolveReshapeDimensions(input, {-1, -1}, true), std::invalid_argument);
    EXPECT_THROW(resolveReshapeDimensions(input, {5, -1}, true), std::invalid_argument);
    EXPECT_THROW(resolveReshapeDimensions(input, {5, 5}, true), std::invalid_argument);
    EXPECT_THROW(resolveReshapeDimensions(input, {-2, -12}, true), std::invalid_argument);
    EXPECT_THROW(resolveReshapeDimensions(input, {0, 0, 0, 0}, true), std::invalid_argument); // no 4th input dim
    EXPECT_THROW(resolveReshapeDimensions(input, {0, 24}, false), std::invalid_argument);
    EXPECT_THROW(resolveReshapeDimensions({0, 3}, {0, -1}, false), std::invalid_argument);
}

TEST(Shuffle, BothTransposesAroundAReshape)
{
    // [[0, 1, 2], [3, 4, 5]] -> transpose -> [[0, 3], [1, 4], [2, 5]] -> reshape [2, 3] -> [[0, 3, 1], [4, 2, 5]]
    // -> transpose -> [[0, 4], [3, 2], [1, 5]].
    HostTensor const input = fromFloats({2, 3}, {0, 1, 2, 3, 4, 5});
    network::ShuffleParams const params = shuffleParams({1, 0}, {2, 3}, {1, 0});
    EXPECT_EQ(shuffleOutputShape(input.shape, params), (Shape{3, 2}));
    HostTensor out = zeros({3, 2});
    shuffle(input.constView(), out.view(), params);
    EXPECT_EQ(out.floats(), (std::vector<float>{0, 4, 3, 2, 1, 5}));
}

TEST(Shuffle, DepthToSpaceAsTwoShuffles)
{
    // ONNX DepthToSpace (DCR, blocksize 2) on N=1, C=4, H=1, W=2 where channel c holds [2c, 2c + 1]:
    // reshape [N, 2, 2, C/4, H, W] + transpose [0, 3, 4, 1, 5, 2], then reshape [N, C/4, 2H, 2W].
    HostTensor const input = fromInts({1, 4, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, DataType::kINT32);
    network::ShuffleParams const first = shuffleParams({}, {1, 2, 2, 1, 1, 2}, {0, 3, 4, 1, 5, 2});
    HostTensor middle = zeros(shuffleOutputShape(input.shape, first), DataType::kINT32);
    shuffle(input.constView(), middle.view(), first);
    network::ShuffleParams const second = shuffleParams({}, {0, 0, 2, 4}, {});
    HostTensor out = zeros(shuffleOutputShape(middle.shape, second), DataType::kINT32);
    EXPECT_EQ(out.shape, (Shape{1, 1, 2, 4}));
    shuffle(middle.constView(), out.view(), second);
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(Shuffle, ReshapeOnlyAndEmpty)
{
    HostTensor const input = fromInts({2, 2}, {1, 2, 3, 4}, DataType::kINT64);
    network::ShuffleParams const params = shuffleParams({}, {-1}, {});
    HostTensor out = zeros({4}, DataType::kINT64);
    shuffle(input.constView(), out.view(), params);
    EXPECT_EQ(out.elements<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4}));
    network::ShuffleParams const empty = shuffleParams({1, 0}, {0, 0}, {1, 0});
    shuffle(ConstTensorView(DataType::kFLOAT, {0, 3}, nullptr), test::emptyView({0, 3}), empty);
}

} // namespace
} // namespace kiln::cpu
