// Select and cast: element-by-element copies.
#include "backend/cpu/kernels/tensor/cast.h"
#include "backend/cpu/kernels/tensor/select.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::fromElements;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;

TEST(Select, BroadcastsConditionThenAndElse)
{
    HostTensor const condition = fromElements<uint8_t>({2, 1}, {1, 0}, DataType::kBOOL);
    HostTensor const thenInput = fromInts({1, 3}, {1, 2, 3}, DataType::kINT64);
    HostTensor const elseInput = fromInts({}, {9}, DataType::kINT64);
    Shape const shape = selectOutputShape(condition.shape, thenInput.shape, elseInput.shape);
    EXPECT_EQ(shape, (Shape{2, 3}));
    HostTensor out = zeros(shape, DataType::kINT64);
    select(condition.constView(), thenInput.constView(), elseInput.constView(), out.view());
    EXPECT_EQ(out.elements<int64_t>(), (std::vector<int64_t>{1, 2, 3, 9, 9, 9}));
}

TEST(Select, BroadcastsAlongInnerAndOuterAxesForEveryElementSize)
{
    // [2, 3, 4]: the condition broadcast along the middle axis, then along the first and the last, else whole; FP32
    // values (NaN and -0 copied as they are) and BOOL ones of one byte.
    float const nan = std::numeric_limits<float>::quiet_NaN();
    HostTensor const condition = fromElements<uint8_t>({2, 1, 4}, {1, 0, 0, 1, 0, 1, 1, 0}, DataType::kBOOL);
    HostTensor const thenInput = fromFloats({3, 1}, {nan, -0.0F, 7.0F});
    std::vector<float> elseValues(24);
    for (size_t i = 0; i < elseValues.size(); ++i)
    {
        elseValues[i] = 100.0F + static_cast<float>(i);
    }
    HostTensor const elseInput = fromFloats({2, 3, 4}, elseValues);
    HostTensor out = zeros({2, 3, 4}, DataType::kFLOAT);
    select(condition.constView(), thenInput.constView(), elseInput.constView(), out.view());
    std::vector<float> const values = out.floats();
    for (int64_t image = 0; image < 2; ++image)
    {
        for (int64_t row = 0; row < 3; ++row)
        {
            for (int64_t column = 0; column < 4; ++column)
            {
                size_t const i = static_cast<size_t>((image * 3 + row) * 4 + column);
                bool const chosen = condition.elements<uint8_t>()[static_cast<size_t>(image * 4 + column)] != 0;
                float const expected = chosen ? thenInput.floats()[static_cast<size_t>(row)] : elseValues[i];
                EXPECT_EQ(std::memcmp(&values[i], &expected, sizeof(float)), 0) << "element " << i;
            }
        }
    }
    HostTensor const flags = fromElements<uint8_t>({2, 3}, {1, 0, 1, 1, 1, 0}, DataType::kBOOL);
    HostTensor const yes = fromElements<uint8_t>({}, {1}, DataType::kBOOL);
    HostTensor const no = fromElements<uint8_t>({3}, {0, 0, 0}, DataType::kBOOL);
    HostTensor chosen = zeros({2, 3}, DataType::kBOOL);
    select(flags.constView(), yes.constView(), no.constView(), chosen.view());
    EXPECT_EQ(chosen.elements<uint8_t>(), (std::vector<uint8_t>{1, 0, 1, 1, 1, 0}));
}

TEST(Select, Fp16AndErrors)
{
    HostTensor const condition = fromElements<uint8_t>({3}, {0, 1, 0}, DataType::kBOOL);
    HostTensor const thenInput = fromFloats({3}, {1, 2, 3}, DataType::kHALF);
    HostTensor const elseInput = fromFloats({1}, {-1}, DataType::kHALF);
    HostTensor out = zeros({3}, DataType::kHALF);
    select(condition.constView(), thenInput.constView(), elseInput.constView(), out.view());
    EXPECT_EQ(out.floats(), (std::vector<float>{-1, 2, -1}));
    EXPECT_THROW(selectOutputShape({2}, {3}, {1}), std::invalid_argument);
    HostTensor const notBool = fromElements<uint8_t>({3}, {0, 1, 0});
    EXPECT_THROW(
        select(notBool.constView(), thenInput.constView(), elseInput.constView(), out.view()), std::invalid_argument);
    // An empty condition: nothing touched.
    select(ConstTensorView(DataType::kBOOL, {0}, nullptr), ConstTensorView(DataType::kHALF, {1}, nullptr),
        ConstTensorView(DataType::kHALF, {1}, nullptr), test::emptyView({0}, DataType::kHALF));
}

template <typename From, typename To>
std::vector<To> castValues(std::vector<From> const& values, DataType from, DataType to)
{
    HostTensor const input = fromElements<From>({static_cast<int64_t>(values.size())}, values, from);
    HostTensor out = zeros(input.shape, to);
    cast(input.constView(), out.view());
    return out.elements<To>();
}

TEST(Cast, FloatToIntegersTruncatesTowardZeroAndSaturates)
{
    std::vector<float> const values{1.7f, -1.7f, 2.5f, -0.5f, 300.0f, -200.0f};
    EXPECT_EQ((castValues<float, int32_t>(values, DataType::kFLOAT, DataType::kINT32)),
        (std::vector<int32_t>{1, -1, 2, 0, 300, -200}));
    EXPECT_EQ((castValues<float, int64_t>(values, DataType::kFLOAT, DataType::kINT64)),
        (std::vector<int64_t>{1, -1, 2, 0, 300, -200}));
    EXPECT_EQ((castValues<float, int8_t>(values, DataType::kFLOAT, DataType::kINT8)),
        (std::vector<int8_t>{1, -1, 2, 0, 127, -128}));
    EXPECT_EQ((castValues<float, uint8_t>(values, DataType::kFLOAT, DataType::kUINT8)),
        (std::vector<uint8_t>{1, 0, 2, 0, 255, 0}));
}

TEST(Cast, BoolIsValueNotZero)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ((castValues<float, uint8_t>({0.0f, -0.0f, 0.5f, nan, -3.0f}, DataType::kFLOAT, DataType::kBOOL)),
        (std::vector<uint8_t>{0, 0, 1, 1, 1}));
    EXPECT_EQ(
        (castValues<int64_t, uint8_t>({0, 5, -1}, DataType::kINT64, DataType::kBOOL)), (std::vector<uint8_t>{0, 1, 1}));
    EXPECT_EQ((castValues<uint8_t, float>({0, 1}, DataType::kBOOL, DataType::kFLOAT)), (std::vector<float>{0, 1}));
    EXPECT_EQ((castValues<uint8_t, int32_t>({0, 1}, DataType::kBOOL, DataType::kINT32)), (std::vector<int32_t>{0, 1}));
}

TEST(Cast, IntegersWrapAndFloatsRound)
{
    int64_t const wide = (int64_t{1} << 32) + 5;
    EXPECT_EQ(
        (castValues<int64_t, int32_t>({wide, -1}, DataType::kINT64, DataType::kINT32)), (std::vector<int32_t>{5, -1}));
    EXPECT_EQ(
        (castValues<int32_t, uint8_t>({257, -1}, DataType::kINT32, DataType::kUINT8)), (std::vector<uint8_t>{1, 255}));
    EXPECT_EQ((castValues<float, uint16_t>({0.1f, 70000.0f}, DataType::kFLOAT, DataType::kHALF)),
        (std::vector<uint16_t>{floatToHalfBits(0.1f), 0x7C00}));
    EXPECT_EQ((castValues<float, uint16_t>({0.1f}, DataType::kFLOAT, DataType::kBF16)),
        (std::vector<uint16_t>{floatToBf16Bits(0.1f)}));
    EXPECT_EQ((castValues<uint16_t, uint16_t>({floatToHalfBits(1.5f)}, DataType::kHALF, DataType::kBF16)),
        (std::vector<uint16_t>{floatToBf16Bits(1.5f)}));
    EXPECT_EQ((castValues<int32_t, uint16_t>({-3}, DataType::kINT32, DataType::kHALF)),
        (std::vector<uint16_t>{floatToHalfBits(-3.0f)}));
    EXPECT_EQ((castValues<int8_t, float>({-128, 7}, DataType::kINT8, DataType::kFLOAT)), (std::vector<float>{-128, 7}));
    EXPECT_EQ((castValues<int64_t, int64_t>({wide}, DataType::kINT64, DataType::kINT64)), (std::vector<int64_t>{wide}));
}

TEST(Cast, EmptyAndErrors)
{
    cast(ConstTensorView(DataType::kFLOAT, {0, 2}, nullptr), test::emptyView({0, 2}, DataType::kINT32));
    HostTensor const input = fromFloats({2}, {1, 2});
    HostTensor out = zeros({3}, DataType::kINT32);
    EXPECT_THROW(cast(input.constView(), out.view()), std::invalid_argument);
    HostTensor right = zeros({2}, DataType::kINT32);
    network::CastParams toInt64;
    toInt64.toType = DataType::kINT64;
    EXPECT_THROW(cast(input.constView(), right.view(), toInt64), std::invalid_argument);
    network::CastParams toInt32;
    toInt32.toType = DataType::kINT32;
    cast(input.constView(), right.view(), toInt32);
    EXPECT_EQ(right.elements<int32_t>(), (std::vector<int32_t>{1, 2}));
}

} // namespace
} // namespace kiln::cpu
