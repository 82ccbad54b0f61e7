// Reformatting between kLINEAR, kHWC (channels last) and kHWC8 (channels last, padded to 8), with and without a
// change of type.
#include "backend/cpu/kernels/tensor/reformat.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(Reformat, LinearToChannelsLastAndBack)
{
    // [N=1, C=2, H=2, W=3]: channel 0 holds 0..5, channel 1 holds 6..11. Channels last interleaves them per pixel.
    HostTensor const linear = fromFloats({1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    HostTensor hwc = filledWith<float>(linear.shape, -1.0F);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.constView(), hwcView);
    EXPECT_EQ(hwc.floats(), (std::vector<float>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));

    HostTensor back = filledWith<float>(linear.shape, -1.0F);
    reformat(hwcView, back.view());
    EXPECT_EQ(back.floats(), linear.floats());
}

TEST(Reformat, EachImageOfTheBatchSeparately)
{
    // [N=2, C=3, W=2] (one spatial axis): image 1 starts after image 0's six elements in both formats.
    HostTensor const linear = fromInts({2, 3, 2}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}, DataType::kINT32);
    HostTensor hwc = filledWith<int32_t>(linear.shape, -1);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.constView(), hwcView);
    EXPECT_EQ(hwc.elements<int32_t>(), (std::vector<int32_t>{0, 2, 4, 1, 3, 5, 10, 12, 14, 11, 13, 15}));
}

TEST(Reformat, ConvertsTheTypeOnTheWay)
{
    HostTensor const linear = fromFloats({1, 2, 1, 2}, {0.5F, 1.0F, -2.0F, 65536.0F});
    HostTensor hwc = zeros(linear.shape, DataType::kHALF);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.constView(), hwcView);
    // 65536 overflows FP16 to infinity, as cast() rounds it.
    EXPECT_EQ(hwc.floats(), (std::vector<float>{0.5F, -2.0F, 1.0F, INFINITY}));
}

TEST(Reformat, ChannelsPaddedToEightAndBack)
{
    // [N=1, C=3, H=1, W=2]: an RGB image of two pixels. kHWC8 stores each pixel's three channels, then five zeros.
    HostTensor const linear = fromFloats({1, 3, 1, 2}, {0, 1, 2, 3, 4, 5});
    EXPECT_EQ(storedCount(linear.shape, TensorFormat::kHWC8), 16);
    HostTensor padded = filledWith<float>({16}, -1.0F);
    TensorView const paddedView{DataType::kFLOAT, linear.shape, padded.bytes.data(), TensorFormat::kHWC8};
    reformat(linear.constView(), paddedView);
    EXPECT_EQ(padded.floats(), (std::vector<float>{0, 2, 4, 0, 0, 0, 0, 0, 1, 3, 5, 0, 0, 0, 0, 0}));

    HostTensor back = filledWith<float>(linear.shape, -1.0F);
    reformat(paddedView, back.view());
    EXPECT_EQ(back.floats(), linear.floats());
}

TEST(Reformat, SameFormatIsACast)
{
    HostTensor const input = fromFloats({2, 2}, {1.5F, -1.0F, 0.0F, 3.0F});
    HostTensor output = zeros(input.shape, DataType::kINT32);
    reformat(input.constView(), output.view());
    EXPECT_EQ(output.elements<int32_t>(), (std::vector<int32_t>{1, -1, 0, 3}));
}

TEST(Reformat, RejectsWhatItCannotDo)
{
    HostTensor const matrix = fromFloats({2, 2}, {1, 2, 3, 4});
    HostTensor out = zeros(matrix.shape);
    TensorView hwcView = out.view();
    hwcView.format = TensorFormat::kHWC;
    EXPECT_THROW(reformat(matrix.constView(), hwcView), std::invalid_argument); // no spatial axis
    TensorView vectorized = out.view();
    vectorized.format = TensorFormat::kCHW32;
    EXPECT_THROW(reformat(matrix.constView(), vectorized), std::invalid_argument);
    HostTensor wrongShape = zeros({4});
    EXPECT_THROW(reformat(matrix.constView(), wrongShape.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
