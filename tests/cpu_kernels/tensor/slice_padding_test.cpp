#include "backend/cpu/kernels/tensor/padding.h"
#include "backend/cpu/kernels/tensor/slice.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using nvinfer1::SampleMode;
using nvinfer1::DataType;
using test::Tensor;

Tensor<float> const kRow({5}, {10, 11, 12, 13, 14});

//! A slice with static start, size and stride.
network::SliceParams sliceParams(
    Shape const& start, Shape const& size, Shape const& stride, SampleMode mode = SampleMode::kSTRICT_BOUNDS)
{
    network::SliceParams params;
    params.start = test::dimsOf(start);
    params.size = test::dimsOf(size);
    params.stride = test::dimsOf(stride);
    params.mode = mode;
    return params;
}

//! A slice's inputs: the data, and input 4, the kFILL value.
LayerInputs dataAndFill(ConstTensorView const& data, ConstTensorView const& fill)
{
    return {data, {}, {}, {}, fill};
}

std::vector<float> slice1d(int64_t start, int64_t size, int64_t stride, SampleMode mode, double fill = 0.0)
{
    auto out = Tensor<float>::zeros({size});
    Tensor<float> const fillValue({}, {static_cast<float>(fill)});
    slice(dataAndFill(kRow.cview(), fillValue.cview()), out.view(), sliceParams({start}, {size}, {stride}, mode));
    return out.values;
}

TEST(Slice, StrictBounds)
{
    EXPECT_EQ(slice1d(1, 3, 1, SampleMode::kSTRICT_BOUNDS), (std::vector<float>{11, 12, 13}));
    EXPECT_EQ(slice1d(4, 3, -2, SampleMode::kSTRICT_BOUNDS), (std::vector<float>{14, 12, 10}));
    EXPECT_EQ(slice1d(2, 3, 0, SampleMode::kSTRICT_BOUNDS), (std::vector<float>{12, 12, 12}));
    EXPECT_THROW(slice1d(3, 3, 1, SampleMode::kSTRICT_BOUNDS), std::invalid_argument);
    EXPECT_THROW(slice1d(1, 3, -1, SampleMode::kSTRICT_BOUNDS), std::invalid_argument);
}

TEST(Slice, Wrap)
{
    EXPECT_EQ(slice1d(-2, 4, 1, SampleMode::kWRAP), (std::vector<float>{13, 14, 10, 11}));
    EXPECT_EQ(slice1d(1, 4, -1, SampleMode::kWRAP), (std::vector<float>{11, 10, 14, 13}));
    EXPECT_EQ(slice1d(0, 3, 7, SampleMode::kWRAP), (std::vector<float>{10, 12, 14}));
}

TEST(Slice, Clamp)
{
    EXPECT_EQ(slice1d(-2, 3, 3, SampleMode::kCLAMP), (std::vector<float>{10, 11, 14}));
    EXPECT_EQ(slice1d(6, 4, -2, SampleMode::kCLAMP), (std::vector<float>{14, 14, 12, 10}));
}

TEST(Slice, Fill)
{
    EXPECT_EQ(slice1d(3, 4, 1, SampleMode::kFILL), (std::vector<float>{13, 14, 0, 0}));
    EXPECT_EQ(slice1d(5, 3, -2, SampleMode::kFILL, -1.0), (std::vector<float>{-1, 13, 11}));
    // The fill value is stored in the output's type: FP16 rounds it.
    Tensor<uint16_t> const half({1}, test::toHalf({1.0f}));
    auto out = Tensor<uint16_t>::zeros({2});
    Tensor<uint16_t> const fill({}, test::toHalf({0.1f}));
    slice(dataAndFill(half.cview(), fill.cview()), out.view(), sliceParams({0}, {2}, {1}, SampleMode::kFILL));
    EXPECT_EQ(out.values, (std::vector<uint16_t>{floatToHalfBits(1.0f), floatToHalfBits(0.1f)}));
}

TEST(Slice, Reflect)
{
    // Period 2 * (5 - 1) = 8, the edge not repeated: ... 12 11 | 10 11 12 13 14 | 13 12 ...
    EXPECT_EQ(slice1d(-3, 5, 1, SampleMode::kREFLECT), (std::vector<float>{13, 12, 11, 10, 11}));
    EXPECT_EQ(slice1d(7, 4, -1, SampleMode::kREFLECT), (std::vector<float>{11, 12, 13, 14}));
    EXPECT_EQ(slice1d(9, 2, -3, SampleMode::kREFLECT), (std::vector<float>{11, 12}));
}

TEST(Slice, TwoDimensionalNegativeStridesForEveryElementSize)
{
    // [[0, 1, 2], [3, 4, 5]] read backwards along both dims.
    network::SliceParams const params = sliceParams({1, 2}, {2, 3}, {-1, -1}, SampleMode::kSTRICT_BOUNDS);
    auto check = [&](auto sample)
    {
        using T = decltype(sample);
        Tensor<T> const input({2, 3}, {0, 1, 2, 3, 4, 5});
        auto out = Tensor<T>::zeros({2, 3});
        slice({input.cview()}, out.view(), params);
        EXPECT_EQ(out.values, (std::vector<T>{5, 4, 3, 2, 1, 0}));
    };
    check(int8_t{});
    check(uint16_t{});
    check(int32_t{});
    check(int64_t{});
}

TEST(Slice, TileIsAWrapSlice)
{
    // ONNX Tile([[1, 2]], repeats [2, 2]).
    Tensor<int32_t> const input({1, 2}, {1, 2});
    auto out = Tensor<int32_t>::zeros({2, 4});
    slice({input.cview()}, out.view(), sliceParams({0, 0}, {2, 4}, {1, 1}, SampleMode::kWRAP));
    EXPECT_EQ(out.values, (std::vector<int32_t>{1, 2, 1, 2, 1, 2, 1, 2}));
}

TEST(Slice, EmptyTensors)
{
    // An empty output reads nothing, even with out-of-range coordinates.
    slice({kRow.cview()}, test::emptyView({0}), sliceParams({100}, {0}, {1}, SampleMode::kSTRICT_BOUNDS));
    // An empty input can only be filled.
    ConstTensorView const empty(DataType::kFLOAT, {0}, nullptr);
    auto out = Tensor<float>::zeros({2});
    Tensor<float> const four({}, {4});
    slice(dataAndFill(empty, four.cview()), out.view(), sliceParams({0}, {2}, {1}, SampleMode::kFILL));
    EXPECT_EQ(out.values, (std::vector<float>{4, 4}));
    EXPECT_THROW(slice({empty}, out.view(), sliceParams({0}, {2}, {1}, SampleMode::kCLAMP)), std::invalid_argument);
    EXPECT_THROW(slice({empty}, out.view(), sliceParams({0}, {2}, {1}, SampleMode::kWRAP)), std::invalid_argument);
}

TEST(Slice, RejectsInconsistentParameters)
{
    auto out = Tensor<float>::zeros({2});
    EXPECT_THROW(slice({kRow.cview()}, out.view(), sliceParams({0, 0}, {2}, {1})), std::invalid_argument);
    EXPECT_THROW(slice({kRow.cview()}, out.view(), sliceParams({0}, {3}, {1})), std::invalid_argument);
}

Tensor<int32_t> const kMatrix({2, 3}, {1, 2, 3, 4, 5, 6});

network::PaddingParams pads(Shape const& prePadding, Shape const& postPadding)
{
    network::PaddingParams params;
    params.prePadding = test::dimsOf(prePadding);
    params.postPadding = test::dimsOf(postPadding);
    return params;
}

TEST(Padding, ConstantZeroOnInnermostDims)
{
    network::PaddingParams const params = pads({1, 1}, {0, 1});
    EXPECT_EQ(paddingOutputShape(kMatrix.shape, params), (Shape{3, 5}));
    auto out = Tensor<int32_t>::zeros({3, 5}, DataType::kINT32, -9);
    padding(kMatrix.cview(), out.view(), params);
    EXPECT_EQ(out.values, (std::vector<int32_t>{0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0}));
    // Entries for the last dim only, as IPaddingLayer's 2-D padding of an NCHW tensor.
    network::PaddingParams const lastDim = pads({2}, {0});
    auto narrow = Tensor<int32_t>::zeros(paddingOutputShape(kMatrix.shape, lastDim));
    padding(kMatrix.cview(), narrow.view(), lastDim, SampleMode::kFILL, 7.0);
    EXPECT_EQ(narrow.values, (std::vector<int32_t>{7, 7, 1, 2, 3, 7, 7, 4, 5, 6}));
}

TEST(Padding, NegativeAmountsCrop)
{
    network::PaddingParams const params = pads({0, -1}, {-1, 1});
    EXPECT_EQ(paddingOutputShape(kMatrix.shape, params), (Shape{1, 3}));
    auto out = Tensor<int32_t>::zeros({1, 3}, DataType::kINT32, -9);
    padding(kMatrix.cview(), out.view(), params);
    EXPECT_EQ(out.values, (std::vector<int32_t>{2, 3, 0}));
    EXPECT_THROW(paddingOutputShape(kMatrix.shape, pads({-2, 0}, {-1, 0})), std::invalid_argument);
}

TEST(Padding, OnnxModes)
{
    Tensor<float> const input({3}, {1, 2, 3});
    auto run = [&](SampleMode mode, int64_t pre, int64_t post)
    {
        network::PaddingParams const params = pads({pre}, {post});
        auto out = Tensor<float>::zeros(paddingOutputShape(input.shape, params));
        padding(input.cview(), out.view(), params, mode, 0.0);
        return out.values;
    };
    EXPECT_EQ(run(SampleMode::kREFLECT, 2, 2), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
    EXPECT_EQ(run(SampleMode::kCLAMP, 2, 2), (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));
    EXPECT_EQ(run(SampleMode::kWRAP, 1, 2), (std::vector<float>{3, 1, 2, 3, 1, 2}));
    EXPECT_EQ(run(SampleMode::kFILL, 1, 0), (std::vector<float>{0, 1, 2, 3}));
}

} // namespace
} // namespace kiln::cpu
