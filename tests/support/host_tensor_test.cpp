// The host tensor: what each factory stores, what the readers give back, and the mistakes it refuses.
#include "host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

TEST(HostTensor, ZerosHoldsEveryByteOfItsShape)
{
    HostTensor tensor = zeros({2, 3}, DataType::kINT64);
    EXPECT_EQ(tensor.count(), 6);
    EXPECT_EQ(tensor.bytes, std::vector<uint8_t>(48, 0));
    TensorView const view = tensor.view();
    EXPECT_EQ(view.type, DataType::kINT64);
    EXPECT_EQ(view.shape, (Shape{2, 3}));
    EXPECT_EQ(view.data, tensor.bytes.data());
    EXPECT_EQ(zeros({}).count(), 1) << "a 0-D tensor holds one element";
}

TEST(HostTensor, EmptyTensorsViewNoMemory)
{
    HostTensor empty = zeros({0, 4});
    EXPECT_EQ(empty.view().data, nullptr);
    EXPECT_EQ(empty.constView().data, nullptr);
    EXPECT_TRUE(empty.floats().empty());
}

TEST(HostTensor, FloatsRoundToHalfAndBf16OnTheWayIn)
{
    HostTensor const half = fromFloats({3}, {0.1F, -2.0F, 70000.0F}, DataType::kHALF);
    EXPECT_EQ(half.elements<uint16_t>(), (std::vector<uint16_t>{floatToHalfBits(0.1F), 0xC000, 0x7C00}));
    EXPECT_EQ(half.floats(), (std::vector<float>{roundThroughHalf(0.1F), -2.0F, INFINITY}));
    HostTensor const bf16 = fromFloats({1}, {0.1F}, DataType::kBF16);
    EXPECT_EQ(bf16.elements<uint16_t>(), std::vector<uint16_t>{floatToBf16Bits(0.1F)});
    EXPECT_EQ(fromFloats({2}, {1.5F, -0.25F}).floats(), (std::vector<float>{1.5F, -0.25F}));
}

TEST(HostTensor, IntsWrapToTheStorageWidth)
{
    EXPECT_EQ(fromInts({3}, {257, -1, 5}, DataType::kUINT8).ints(), (std::vector<int64_t>{1, 255, 5}));
    EXPECT_EQ(fromInts({2}, {128, -129}, DataType::kINT8).ints(), (std::vector<int64_t>{-128, 127}));
    EXPECT_EQ(fromInts({3}, {0, 2, -1}, DataType::kBOOL).bytes, (std::vector<uint8_t>{0, 1, 1}));
    HostTensor const wide = fromInts({2}, {int64_t{1} << 40, -7}, DataType::kINT64);
    EXPECT_EQ(wide.elements<int64_t>(), (std::vector<int64_t>{int64_t{1} << 40, -7}));
    EXPECT_EQ(fromInts({2}, {3, -4}, DataType::kINT32).floats(), (std::vector<float>{3.0F, -4.0F}));
}

TEST(HostTensor, ElementsAndBytesAreStoredAsGiven)
{
    HostTensor const bits = fromElements<uint16_t>({2}, {0x3C00, 0xC000});
    EXPECT_EQ(bits.type, DataType::kHALF) << "uint16_t holds FP16 unless the test names kBF16";
    EXPECT_EQ(bits.floats(), (std::vector<float>{1.0F, -2.0F}));
    EXPECT_EQ(fromElements<uint16_t>({1}, {0x3F80}, DataType::kBF16).floats(), std::vector<float>{1.0F});
    EXPECT_EQ(fromElements<int32_t>({2}, {7, -7}).type, DataType::kINT32);
    HostTensor const marked = filledWith<int8_t>({2, 2}, -9);
    EXPECT_EQ(marked.type, DataType::kINT8);
    EXPECT_EQ(marked.elements<int8_t>(), std::vector<int8_t>(4, -9));
    HostTensor const raw = fromBytes({1}, {0x00, 0x00, 0x80, 0x3F}, DataType::kFLOAT);
    EXPECT_EQ(raw.floats(), std::vector<float>{1.0F});
}

TEST(HostTensor, RefusesValuesThatDoNotFit)
{
    EXPECT_THROW(fromFloats({2, 2}, {1, 2, 3}), std::invalid_argument);
    EXPECT_THROW(fromFloats({1}, {1}, DataType::kINT32), std::invalid_argument);
    EXPECT_THROW(fromInts({1}, {1}, DataType::kFLOAT), std::invalid_argument);
    EXPECT_THROW(fromElements<int32_t>({1}, {1}, DataType::kHALF), std::invalid_argument);
    EXPECT_THROW(fromBytes({2}, {0, 0, 0, 0}, DataType::kFLOAT), std::invalid_argument);
    EXPECT_THROW(fromFloats({1}, {1}).ints(), std::invalid_argument);
    EXPECT_THROW(fromFloats({1}, {1}).elements<uint16_t>(), std::invalid_argument);
}

} // namespace
} // namespace kiln::test
