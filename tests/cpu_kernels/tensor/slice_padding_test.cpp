#include "backend/cpu/kernels/tensor/padding.h"
#include "backend/cpu/kernels/tensor/slice.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::dataTypeOf;
using kiln::test::filledWith;
using kiln::test::fromElements;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::SampleMode;

HostTensor const kRow = fromFloats({5}, {10, 11, 12, 13, 14});

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
    HostTensor out = zeros({size});
    HostTensor const fillValue = fromFloats({}, {static_cast<float>(fill)});
    slice(
        dataAndFill(kRow.constView(), fillValue.constView()), out.view(), sliceParams({start}, {size}, {stride}, mode));
    return out.floats();
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
    HostTensor const half = fromFloats({1}, {1.0f}, DataType::kHALF);
    HostTensor out = zeros({2}, DataType::kHALF);
    HostTensor const fill = fromFloats({}, {0.1f}, DataType::kHALF);
    slice(dataAndFill(half.constView(), fill.constView()), out.view(), sliceParams({0}, {2}, {1}, SampleMode::kFILL));
    EXPECT_EQ(out.elements<uint16_t>(), (std::vector<uint16_t>{floatToHalfBits(1.0f), floatToHalfBits(0.1f)}));
}

TEST(Slice, Reflect)
{
    // Period 2 * (5 - 1) = 8, the edge not repeated: ... 12 11 | 10 11 12 13 14 | 13 12 ...
    EXPECT_EQ(slice1d(-3, 5, 1, SampleMode::kREFLECT), (std::vector<float>{13, 12, 11, 10, 11}));
    EXPECT_EQ(slice1d(7, 4, -1, SampleMode::kREFLECT), (std::vector<float>{11, 12, 13, 14}));
    EXPECT_EQ(slice1d(9, 2, -3, SampleMode::kREFLECT), (std::vector<float>{11, 12}));
}

//! A plan may hold any 64-bit start and stride: where start + i * stride passes 64 bits the kernel refuses the slice
//! in every mode, rather than sample a wrapped coordinate; up to that it samples as the mode says.
TEST(Slice, CoordinatesBeyond64BitsAreErrors)
{
    int64_t const huge = int64_t{1} << 61;
    for (SampleMode mode : {SampleMode::kWRAP, SampleMode::kCLAMP, SampleMode::kFILL, SampleMode::kREFLECT})
    {
        EXPECT_THROW(slice1d(0, 5, huge, mode), std::invalid_argument);
        EXPECT_THROW(slice1d(-1, 2, std::numeric_limits<int64_t>::min(), mode), std::invalid_argument);
    }
    // 3 * 2^61 fits: coordinates 0, 2^61, 2^62 and 3 * 2^61, which wrap to 0, 2, 4 and 1 along an axis of 5 (2^61 =
    // 5 * 461168601842738790 + 2).
    EXPECT_EQ(slice1d(0, 4, huge, SampleMode::kWRAP), (std::vector<float>{10, 12, 14, 11}));
    EXPECT_EQ(slice1d(0, 4, huge, SampleMode::kCLAMP), (std::vector<float>{10, 14, 14, 14}));
}

TEST(Slice, TwoDimensionalNegativeStridesForEveryElementSize)
{
    // [[0, 1, 2], [3, 4, 5]] read backwards along both dims.
    network::SliceParams const params = sliceParams({1, 2}, {2, 3}, {-1, -1}, SampleMode::kSTRICT_BOUNDS);
    auto check = [&](auto sample) {
        using T = decltype(sample);
        HostTensor const input = fromElements<T>({2, 3}, {0, 1, 2, 3, 4, 5});
        HostTensor out = zeros({2, 3}, dataTypeOf<T>());
        slice({input.constView()}, out.view(), params);
        EXPECT_EQ(out.elements<T>(), (std::vector<T>{5, 4, 3, 2, 1, 0}));
    };
    check(int8_t{});
    check(uint16_t{});
    check(int32_t{});
    check(int64_t{});
}

TEST(Slice, TileIsAWrapSlice)
{
    // ONNX Tile([[1, 2]], repeats [2, 2]).
    HostTensor const input = fromInts({1, 2}, {1, 2}, DataType::kINT32);
    HostTensor out = zeros({2, 4}, DataType::kINT32);
    slice({input.constView()}, out.view(), sliceParams({0, 0}, {2, 4}, {1, 1}, SampleMode::kWRAP));
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{1, 2, 1, 2, 1, 2, 1, 2}));
}

TEST(Slice, EmptyTensors)
{
    // An empty output reads nothing, even with out-of-range coordinates.
    slice({kRow.constView()}, test::emptyView({0}), sliceParams({100}, {0}, {1}, SampleMode::kSTRICT_BOUNDS));
    // An empty input can only be filled.
    ConstTensorView const empty(DataType::kFLOAT, {0}, nullptr);
    HostTensor out = zeros({2});
    HostTensor const four = fromFloats({}, {4});
    slice(dataAndFill(empty, four.constView()), out.view(), sliceParams({0}, {2}, {1}, SampleMode::kFILL));
    EXPECT_EQ(out.floats(), (std::vector<float>{4, 4}));
    EXPECT_THROW(slice({empty}, out.view(), sliceParams({0}, {2}, {1}, SampleMode::kCLAMP)), std::invalid_argument);
    EXPECT_THROW(slice({empty}, out.view(), sliceParams({0}, {2}, {1}, SampleMode::kWRAP)), std::invalid_argument);
}

TEST(Slice, RejectsInconsistentParameters)
{
    HostTensor out = zeros({2});
    EXPECT_THROW(slice({kRow.constView()}, out.view(), sliceParams({0, 0}, {2}, {1})), std::invalid_argument);
    EXPECT_THROW(slice({kRow.constView()}, out.view(), sliceParams({0}, {3}, {1})), std::invalid_argument);
}

HostTensor const kMatrix = fromInts({2, 3}, {1, 2, 3, 4, 5, 6}, DataType::kINT32);

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
    HostTensor out = filledWith<int32_t>({3, 5}, -9);
    padding(kMatrix.constView(), out.view(), params);
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0}));
    // Entries for the last dim only, as IPaddingLayer's 2-D padding of an NCHW tensor.
    network::PaddingParams const lastDim = pads({2}, {0});
    HostTensor narrow = zeros(paddingOutputShape(kMatrix.shape, lastDim), DataType::kINT32);
    padding(kMatrix.constView(), narrow.view(), lastDim, SampleMode::kFILL, 7.0);
    EXPECT_EQ(narrow.elements<int32_t>(), (std::vector<int32_t>{7, 7, 1, 2, 3, 7, 7, 4, 5, 6}));
}

TEST(Padding, NegativeAmountsCrop)
{
    network::PaddingParams const params = pads({0, -1}, {-1, 1});
    EXPECT_EQ(paddingOutputShape(kMatrix.shape, params), (Shape{1, 3}));
    HostTensor out = filledWith<int32_t>({1, 3}, -9);
    padding(kMatrix.constView(), out.view(), params);
    EXPECT_EQ(out.elements<int32_t>(), (std::vector<int32_t>{2, 3, 0}));
    EXPECT_THROW(paddingOutputShape(kMatrix.shape, pads({-2, 0}, {-1, 0})), std::invalid_argument);
}

TEST(Padding, OnnxModes)
{
    HostTensor const input = fromFloats({3}, {1, 2, 3});
    auto run = [&](SampleMode mode, int64_t pre, int64_t post) {
        network::PaddingParams const params = pads({pre}, {post});
        HostTensor out = zeros(paddingOutputShape(input.shape, params));
        padding(input.constView(), out.view(), params, mode, 0.0);
        return out.floats();
    };
    EXPECT_EQ(run(SampleMode::kREFLECT, 2, 2), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
    EXPECT_EQ(run(SampleMode::kCLAMP, 2, 2), (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));
    EXPECT_EQ(run(SampleMode::kWRAP, 1, 2), (std::vector<float>{3, 1, 2, 3, 1, 2}));
    EXPECT_EQ(run(SampleMode::kFILL, 1, 0), (std::vector<float>{0, 1, 2, 3}));
}

} // namespace
} // namespace kiln::cpu
