// Reformatting between kLINEAR, kHWC (channels last) and kHWC8 (channels last, padded to 8), with and without a
// change of type; and between kLINEAR and the vector-major kCHW4 and kCHW32 that INT8 plugins read.
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
using kiln::test::fromElements;
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

TEST(Reformat, ChannelsLastAcrossTilesOfEveryElementSize)
{
    // [N=2, C=37, H=5, W=13]: neither the channels nor the 65 positions a multiple of the transpose's tiles, for
    // elements of 1, 2, 4 and 8 bytes. Row-major element i holds i % 251 (exact in every type); each is checked where
    // kHWC puts it, and the way back.
    Shape const shape{2, 37, 5, 13};
    int64_t const channels = 37;
    int64_t const positions = 65;
    std::vector<float> values(static_cast<size_t>(volume(shape)));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(i % 251);
    }
    for (DataType const type : {DataType::kUINT8, DataType::kHALF, DataType::kFLOAT, DataType::kINT64})
    {
        HostTensor linear = zeros(shape, type);
        reformat(fromFloats(shape, values).constView(), linear.view()); // the same format: a cast
        HostTensor hwc = zeros(shape, type);
        TensorView hwcView = hwc.view();
        hwcView.format = TensorFormat::kHWC;
        reformat(linear.constView(), hwcView);
        std::vector<float> const stored = hwc.floats();
        for (int64_t n = 0; n < 2; ++n)
        {
            for (int64_t c = 0; c < channels; ++c)
            {
                for (int64_t p = 0; p < positions; ++p)
                {
                    auto const rowMajor = static_cast<size_t>((n * channels + c) * positions + p);
                    auto const channelsLast = static_cast<size_t>((n * positions + p) * channels + c);
                    ASSERT_EQ(stored[channelsLast], values[rowMajor])
                        << kiln::dataTypeName(type) << " n " << n << " c " << c << " p " << p;
                }
            }
        }
        HostTensor back = zeros(shape, type);
        reformat(hwcView, back.view());
        EXPECT_EQ(back.floats(), values) << kiln::dataTypeName(type);
    }
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

TEST(Reformat, Chw4GroupsFourChannelsPerPositionAndPadsTheLast)
{
    // [N=1, C=5, H=1, W=2], INT8: channel c holds 10c + w. kCHW4 lies as [1][2][1][2][4]: the first vector block holds
    // channels 0-3 of each position, the second channel 4 and three zeros.
    std::vector<int8_t> values;
    for (int8_t c = 0; c < 5; ++c)
    {
        values.push_back(static_cast<int8_t>(10 * c));
        values.push_back(static_cast<int8_t>(10 * c + 1));
    }
    HostTensor const linear = fromElements<int8_t>({1, 5, 1, 2}, values);
    HostTensor packed = filledWith<int8_t>({16}, int8_t{-1});
    TensorView packedView{DataType::kINT8, linear.shape, packed.bytes.data(), TensorFormat::kCHW4};
    reformat(linear.constView(), packedView);
    EXPECT_EQ(packed.elements<int8_t>(), (std::vector<int8_t>{0, 10, 20, 30, 1, 11, 21, 31, 40, 0, 0, 0, 41, 0, 0, 0}));

    HostTensor back = filledWith<int8_t>(linear.shape, int8_t{-1});
    reformat(packedView, back.view());
    EXPECT_EQ(back.elements<int8_t>(), values);
}

TEST(Reformat, Chw32VectorizesTheThirdAxisFromTheLast)
{
    // [S=2, B=1, E=3, 1, 1] (BERT's layout for its INT8 plugins): E is the vectorized axis, padded to 32 per row.
    HostTensor const linear = fromElements<int8_t>({2, 1, 3, 1, 1}, {1, 2, 3, -4, -5, -6});
    HostTensor packed = filledWith<int8_t>({64}, int8_t{7});
    TensorView packedView{DataType::kINT8, linear.shape, packed.bytes.data(), TensorFormat::kCHW32};
    reformat(linear.constView(), packedView);
    std::vector<int8_t> expected(64, 0);
    expected[0] = 1;
    expected[1] = 2;
    expected[2] = 3;
    expected[32] = -4;
    expected[33] = -5;
    expected[34] = -6;
    EXPECT_EQ(packed.elements<int8_t>(), expected);

    HostTensor back = filledWith<int8_t>(linear.shape, int8_t{0});
    reformat(packedView, back.view());
    EXPECT_EQ(back.elements<int8_t>(), linear.elements<int8_t>());
}

TEST(Reformat, VectorMajorFormatsMoveOnlyFromAndIntoLinearInOneType)
{
    HostTensor const linear = fromElements<int8_t>({1, 4, 1, 1}, {1, 2, 3, 4});
    HostTensor out = zeros({1, 4, 1, 1}, DataType::kFLOAT);
    TensorView asFloat = out.view();
    asFloat.format = TensorFormat::kCHW4;
    EXPECT_THROW(reformat(linear.constView(), asFloat), std::invalid_argument); // INT8 into FP32
    HostTensor hwc = zeros({1, 4, 1, 1}, DataType::kINT8);
    TensorView hwcView = hwc.view();
    hwcView.format = TensorFormat::kHWC;
    ConstTensorView chw4 = linear.constView();
    chw4.format = TensorFormat::kCHW4;
    EXPECT_THROW(reformat(chw4, hwcView), std::invalid_argument); // kCHW4 into kHWC
    HostTensor flat = zeros({4, 1}, DataType::kINT8);
    TensorView flatView = flat.view();
    flatView.format = TensorFormat::kCHW32;
    EXPECT_THROW(reformat(fromElements<int8_t>({4, 1}, {1, 2, 3, 4}).constView(), flatView), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
