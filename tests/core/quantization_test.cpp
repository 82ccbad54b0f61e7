// core/quantization.h's arithmetic, which the CPU reference, the CUDA kernels and the ONNX parser share, against values
// worked out by hand from ONNX's definitions: INT8's rounding half to even, saturation and zero point; FP8 E4M3FN's
// encoding (bias 7, 3 mantissa bits, 0x7E = 448, 0x7F NaN), its ties to even among normals and subnormals, saturation
// of large values and infinities, signed zeros and NaNs of both signs; and the dequantizations back.
#include "core/quantization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln
{
namespace
{

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

TEST(Int8Quantization, RoundsHalfToEvenAndSaturates)
{
    EXPECT_EQ(quantizeToInt8(2.5F, 1.0F), 2);
    EXPECT_EQ(quantizeToInt8(3.5F, 1.0F), 4);
    EXPECT_EQ(quantizeToInt8(-2.5F, 1.0F), -2);
    EXPECT_EQ(quantizeToInt8(1.3F, 0.5F), 3); // 2.6
    EXPECT_EQ(quantizeToInt8(200.0F, 1.0F), 127);
    EXPECT_EQ(quantizeToInt8(-200.0F, 1.0F), -128);
    EXPECT_EQ(quantizeToInt8(kInfinity, 1.0F), 127);
    EXPECT_EQ(quantizeToInt8(2.5F, 1.0F, 10), 12);
    EXPECT_EQ(quantizeToInt8(120.0F, 1.0F, 10), 127);
    EXPECT_EQ(quantizeToInt8(kNan, 1.0F, -3), -3);
}

TEST(Int8Quantization, DequantizesWithItsZeroPoint)
{
    EXPECT_EQ(dequantizeInt8(-128, 0.5F), -64.0F);
    EXPECT_EQ(dequantizeInt8(5, 2.0F, 3), 4.0F);
    EXPECT_EQ(roundThroughQuantization(1.3F, 0.5F, false), 1.5F);
}

TEST(Fp8Quantization, EncodesNormalsAndSubnormals)
{
    EXPECT_EQ(quantizeToFp8(1.0F, 1.0F), 0x38);         // 0.0111.000
    EXPECT_EQ(quantizeToFp8(3.0F, 2.0F), 0x3C);         // 1.5 = 0.0111.100
    EXPECT_EQ(quantizeToFp8(-1.5F, 1.0F), 0xBC);        // the sign bit
    EXPECT_EQ(quantizeToFp8(0.015625F, 1.0F), 0x08);    // 2^-6, the smallest normal: 0.0001.000
    EXPECT_EQ(quantizeToFp8(0.001953125F, 1.0F), 0x01); // 2^-9, the smallest subnormal
    EXPECT_EQ(quantizeToFp8(0.013671875F, 1.0F), 0x07); // 7 x 2^-9, the largest subnormal
    EXPECT_EQ(quantizeToFp8(448.0F, 1.0F), 0x7E);       // 0.1111.110, the largest finite value
}

TEST(Fp8Quantization, TiesGoToTheEvenCode)
{
    EXPECT_EQ(quantizeToFp8(1.0625F, 1.0F), 0x38);       // between 1 (0x38) and 1.125 (0x39)
    EXPECT_EQ(quantizeToFp8(1.1875F, 1.0F), 0x3A);       // between 1.125 (0x39) and 1.25 (0x3A)
    EXPECT_EQ(quantizeToFp8(0.0009765625F, 1.0F), 0x00); // 2^-10: between 0 and 2^-9
    EXPECT_EQ(quantizeToFp8(0.0029296875F, 1.0F), 0x02); // 3 x 2^-10: between 2^-9 (0x01) and 2^-8 (0x02)
    EXPECT_EQ(quantizeToFp8(1.07F, 1.0F), 0x39);         // past the tie, up
}

TEST(Fp8Quantization, SaturatesKeepsSignedZerosAndNans)
{
    EXPECT_EQ(quantizeToFp8(464.0F, 1.0F), 0x7E); // the tie with 480, which E4M3FN lacks
    EXPECT_EQ(quantizeToFp8(1e6F, 1.0F), 0x7E);
    EXPECT_EQ(quantizeToFp8(kInfinity, 1.0F), 0x7E);
    EXPECT_EQ(quantizeToFp8(-kInfinity, 1.0F), 0xFE);
    EXPECT_EQ(quantizeToFp8(0.0F, 1.0F), 0x00);
    EXPECT_EQ(quantizeToFp8(-0.0F, 1.0F), 0x80);
    EXPECT_EQ(quantizeToFp8(-1e-30F, 1.0F), 0x80); // below half of the smallest subnormal, the sign kept
    EXPECT_EQ(quantizeToFp8(kNan, 1.0F), 0x7F);
    EXPECT_EQ(quantizeToFp8(-kNan, 1.0F), 0xFF);
}

TEST(Fp8Quantization, AddsAZeroPointButNotAZero)
{
    EXPECT_EQ(quantizeToFp8(1.0F, 1.0F, 0x38), 0x40);  // 1 + 1 = 2: 0.1000.000
    EXPECT_EQ(quantizeToFp8(-0.0F, 1.0F, 0x00), 0x80); // -0 + 0 would be +0
}

TEST(Fp8Quantization, DequantizesEveryKindOfCode)
{
    EXPECT_EQ(dequantizeFp8(0x3C, 2.0F), 3.0F);
    EXPECT_EQ(dequantizeFp8(0x01, 1.0F), 0.001953125F);
    EXPECT_EQ(dequantizeFp8(0xFE, 1.0F), -448.0F);
    EXPECT_EQ(dequantizeFp8(0x40, 1.0F, 0x38), 1.0F);
    EXPECT_TRUE(std::signbit(dequantizeFp8(0x80, 1.0F)));
    EXPECT_TRUE(std::isnan(dequantizeFp8(0x7F, 1.0F)));
    EXPECT_TRUE(std::isnan(dequantizeFp8(0xFF, 1.0F)));
    EXPECT_EQ(roundThroughQuantization(1.1875F, 1.0F, true), 1.25F);
}

} // namespace
} // namespace kiln
