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

using nvinfer1::DataType;
using test::Tensor;

TEST(Reformat, LinearToChannelsLastAndBack)
{
    // [N=1, C=2, H=2, W=3]: channel 0 holds 0..5, channel 1 holds 6..11. Channels last interleaves them per pixel.
    Tensor<float> const linear({1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    auto hwc = Tensor<float>::zeros(linear.shape, DataType::kFLOAT, -1.0F);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.cview(), hwcView);
    EXPECT_EQ(hwc.values, (std::vector<float>{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11}));

    auto back = Tensor<float>::zeros(linear.shape, DataType::kFLOAT, -1.0F);
    reformat(hwcView, back.view());
    EXPECT_EQ(back.values, linear.values);
}

TEST(Reformat, EachImageOfTheBatchSeparately)
{
    // [N=2, C=3, W=2] (one spatial axis): image 1 starts after image 0's six elements in both formats.
    Tensor<int32_t> const linear({2, 3, 2}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
    auto hwc = Tensor<int32_t>::zeros(linear.shape, DataType::kINT32, -1);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.cview(), hwcView);
    EXPECT_EQ(hwc.values, (std::vector<int32_t>{0, 2, 4, 1, 3, 5, 10, 12, 14, 11, 13, 15}));
}

TEST(Reformat, ConvertsTheTypeOnTheWay)
{
    Tensor<float> const linear({1, 2, 1, 2}, {0.5F, 1.0F, -2.0F, 65536.0F});
    auto hwc = Tensor<uint16_t>::zeros(linear.shape, DataType::kHALF);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    reformat(linear.cview(), hwcView);
    // 65536 overflows FP16 to infinity, as cast() rounds it.
    EXPECT_EQ(test::fromHalf(hwc.values), (std::vector<float>{0.5F, -2.0F, 1.0F, INFINITY}));
}

TEST(Reformat, ChannelsPaddedToEightAndBack)
{
    // [N=1, C=3, H=1, W=2]: an RGB image of two pixels. kHWC8 stores each pixel's three channels, then five zeros.
    Tensor<float> const linear({1, 3, 1, 2}, {0, 1, 2, 3, 4, 5});
    EXPECT_EQ(storedCount(linear.shape, TensorFormat::kHWC8), 16);
    auto padded = Tensor<float>::zeros({16}, DataType::kFLOAT, -1.0F);
    TensorView const paddedView{DataType::kFLOAT, linear.shape, padded.values.data(), TensorFormat::kHWC8};
    reformat(linear.cview(), paddedView);
    EXPECT_EQ(padded.values, (std::vector<float>{0, 2, 4, 0, 0, 0, 0, 0, 1, 3, 5, 0, 0, 0, 0, 0}));

    auto back = Tensor<float>::zeros(linear.shape, DataType::kFLOAT, -1.0F);
    reformat(paddedView, back.view());
    EXPECT_EQ(back.values, linear.values);
}

TEST(Reformat, SameFormatIsACast)
{
    Tensor<float> const input({2, 2}, {1.5F, -1.0F, 0.0F, 3.0F});
    auto output = Tensor<int32_t>::zeros(input.shape, DataType::kINT32);
    reformat(input.cview(), output.view());
    EXPECT_EQ(output.values, (std::vector<int32_t>{1, -1, 0, 3}));
}

TEST(Reformat, RejectsWhatItCannotDo)
{
    Tensor<float> const matrix({2, 2}, {1, 2, 3, 4});
    auto out = Tensor<float>::zeros(matrix.shape);
    TensorView hwcView = out.view();
    hwcView.format = TensorFormat::kHWC;
    EXPECT_THROW(reformat(matrix.cview(), hwcView), std::invalid_argument); // no spatial axis
    TensorView vectorized = out.view();
    vectorized.format = TensorFormat::kCHW32;
    EXPECT_THROW(reformat(matrix.cview(), vectorized), std::invalid_argument);
    auto wrongShape = Tensor<float>::zeros({4});
    EXPECT_THROW(reformat(matrix.cview(), wrongShape.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
