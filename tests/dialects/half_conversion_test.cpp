// The small FP16 converters that the plugins carry (the seed plugins' and the dialect
// plugins') agree with Kiln's own conversions: round to nearest even, overflow to
// infinity, subnormals, NaN.
#include "DialectCommon.h"

#include <SeedPluginUtils.h>
#include <device_common/half.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

TEST(PluginHalfConversion, EveryHalfConvertsToTheSameFloat)
{
    for (uint32_t h = 0; h <= 0xFFFFu; ++h)
    {
        auto const bits = static_cast<uint16_t>(h);
        float const want = kiln::halfBitsToFloat(bits);
        float const seed = kiln_seed::halfToFloat(bits);
        float const dialect = dialect::plugin::halfToFloat(bits);
        if (std::isnan(want))
        {
            EXPECT_TRUE(std::isnan(seed)) << h;
            EXPECT_TRUE(std::isnan(dialect)) << h;
            continue;
        }
        ASSERT_EQ(std::bit_cast<uint32_t>(seed), std::bit_cast<uint32_t>(want)) << h;
        ASSERT_EQ(std::bit_cast<uint32_t>(dialect), std::bit_cast<uint32_t>(want)) << h;
    }
}

TEST(PluginHalfConversion, FloatsRoundLikeKiln)
{
    // Every half, the midpoints between neighbours (ties go to even) and their float
    // neighbours, then a sweep over all float bit patterns with a prime stride.
    auto check = [](float f) {
        uint16_t const want = kiln::floatToHalfBits(f);
        uint16_t const seed = kiln_seed::floatToHalf(f);
        uint16_t const dialect = dialect::plugin::floatToHalf(f);
        if (std::isnan(f))
        {
            EXPECT_EQ(seed & 0x7C00u, 0x7C00u);
            EXPECT_NE(seed & 0x3FFu, 0u);
            EXPECT_EQ(dialect & 0x7C00u, 0x7C00u);
            EXPECT_NE(dialect & 0x3FFu, 0u);
            return;
        }
        ASSERT_EQ(seed, want) << f << " bits " << std::bit_cast<uint32_t>(f);
        ASSERT_EQ(dialect, want) << f << " bits " << std::bit_cast<uint32_t>(f);
    };
    for (uint32_t h = 0; h < 0x7C00u; ++h)
    {
        float const lo = kiln::halfBitsToFloat(static_cast<uint16_t>(h));
        float const hi = kiln::halfBitsToFloat(static_cast<uint16_t>(h + 1));
        float const mid = lo + (hi - lo) / 2.0F; // exact in float
        for (float f : {lo, mid, std::nextafter(mid, 0.0F), std::nextafter(mid, 1e9F)})
        {
            check(f);
            check(-f);
        }
    }
    for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 65521)
    {
        check(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    }
    check(65504.0F);
    check(65519.99F);
    check(65520.0F);
    check(INFINITY);
    check(-INFINITY);
    check(NAN);
}
