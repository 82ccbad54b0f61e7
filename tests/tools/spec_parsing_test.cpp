// The flag-value grammars: shape lists, name:file lists, memory pool sizes, percentiles.
#include "spec_parsing.h"

#include <gtest/gtest.h>

namespace
{

using namespace kiln::cli;

std::vector<int64_t> extents(nvinfer1::Dims const& d)
{
    return std::vector<int64_t>(d.d, d.d + d.nbDims);
}

TEST(ShapeSpecs, ParsesSeveralInputs)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    ASSERT_TRUE(parseShapeSpecs("input:1x3x224x224,mask:1x224", specs, error)) << error;
    ASSERT_EQ(specs.size(), 2U);
    EXPECT_EQ(specs[0].name, "input");
    EXPECT_EQ(extents(specs[0].dims), (std::vector<int64_t>{1, 3, 224, 224}));
    EXPECT_EQ(specs[1].name, "mask");
    EXPECT_EQ(extents(specs[1].dims), (std::vector<int64_t>{1, 224}));
}

TEST(ShapeSpecs, QuotedNamesMayHoldColonsAndCommas)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    ASSERT_TRUE(parseShapeSpecs("'in:0':2x3,'a,b':4", specs, error)) << error;
    ASSERT_EQ(specs.size(), 2U);
    EXPECT_EQ(specs[0].name, "in:0");
    EXPECT_EQ(extents(specs[0].dims), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(specs[1].name, "a,b");
    EXPECT_EQ(extents(specs[1].dims), (std::vector<int64_t>{4}));
}

TEST(ShapeSpecs, UnquotedNameEndsAtTheLastColon)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    ASSERT_TRUE(parseShapeSpecs("input:0:1x3", specs, error)) << error;
    EXPECT_EQ(specs[0].name, "input:0");
    EXPECT_EQ(extents(specs[0].dims), (std::vector<int64_t>{1, 3}));
}

TEST(ShapeSpecs, ScalarAndAnEmptyValueAreZeroDimensional)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    ASSERT_TRUE(parseShapeSpecs("s:", specs, error)) << error;
    EXPECT_EQ(specs[0].dims.nbDims, 0);
    ASSERT_TRUE(parseShapeSpecs("x:2x3,s:scalar,'t:0':", specs, error)) << error;
    ASSERT_EQ(specs.size(), 3U);
    EXPECT_EQ(extents(specs[0].dims), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(specs[1].name, "s");
    EXPECT_EQ(specs[1].dims.nbDims, 0);
    EXPECT_EQ(specs[2].name, "t:0");
    EXPECT_EQ(specs[2].dims.nbDims, 0);
    // Only the whole word: "scalar" inside a shape is not a dimension.
    EXPECT_FALSE(parseShapeSpecs("s:scalarx2", specs, error));
    EXPECT_NE(error.find("is not a dimension"), std::string::npos) << error;
}

TEST(ShapeSpecs, RejectsWhatIsNotAShape)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    EXPECT_FALSE(parseShapeSpecs("x:1x-3", specs, error));
    EXPECT_NE(error.find("\"-3\" is not a dimension"), std::string::npos) << error;
    EXPECT_FALSE(parseShapeSpecs("x:1xx3", specs, error));
    EXPECT_FALSE(parseShapeSpecs("x1x3", specs, error));
    EXPECT_NE(error.find("expected name:value"), std::string::npos) << error;
    EXPECT_FALSE(parseShapeSpecs("'x:1x3", specs, error));
    EXPECT_NE(error.find("no closing quote"), std::string::npos) << error;
    EXPECT_FALSE(parseShapeSpecs(":1x3", specs, error));
    EXPECT_FALSE(parseShapeSpecs("x:1x2x3x4x5x6x7x8x9", specs, error));
    EXPECT_NE(error.find("more than 8 dimensions"), std::string::npos) << error;
    EXPECT_FALSE(parseShapeSpecs("x:1,x:2", specs, error));
    EXPECT_NE(error.find("given twice"), std::string::npos) << error;
}

TEST(NameValueLists, LoadInputsStyle)
{
    std::vector<NameValue> entries;
    std::string error;
    ASSERT_TRUE(parseNameValueList("'x':/tmp/a.bin,y:b.bin", entries, error)) << error;
    ASSERT_EQ(entries.size(), 2U);
    EXPECT_EQ(entries[0].name, "x");
    EXPECT_EQ(entries[0].value, "/tmp/a.bin");
    EXPECT_EQ(entries[1].name, "y");
    EXPECT_EQ(entries[1].value, "b.bin");
    EXPECT_FALSE(parseNameValueList("", entries, error));
}

TEST(MemPoolSizes, BareNumbersAreMiBAndSuffixesScale)
{
    std::vector<PoolSize> pools;
    std::string error;
    ASSERT_TRUE(parseMemPoolSizes("workspace:1024", pools, error)) << error;
    EXPECT_EQ(pools[0].pool, "workspace");
    EXPECT_EQ(pools[0].bytes, 1024ULL << 20);
    ASSERT_TRUE(parseMemPoolSizes("workspace:2G,dlaSRAM:512K,tacticSharedMem:100B,dlaLocalDRAM:1.5M", pools, error));
    EXPECT_EQ(pools[0].bytes, 2ULL << 30);
    EXPECT_EQ(pools[1].bytes, 512ULL << 10);
    EXPECT_EQ(pools[2].bytes, 100U);
    EXPECT_EQ(pools[3].bytes, 3ULL << 19);
}

TEST(MemPoolSizes, RejectsUnknownPoolsAndNonNumbers)
{
    std::vector<PoolSize> pools;
    std::string error;
    EXPECT_FALSE(parseMemPoolSizes("scratch:1", pools, error));
    EXPECT_NE(error.find("unknown memory pool \"scratch\""), std::string::npos) << error;
    EXPECT_FALSE(parseMemPoolSizes("workspace:1T", pools, error));
    EXPECT_FALSE(parseMemPoolSizes("workspace:-1", pools, error));
    EXPECT_FALSE(parseMemPoolSizes("workspace:", pools, error));
}

TEST(Percentiles, ParsesAndChecksTheRange)
{
    std::vector<float> p;
    std::string error;
    ASSERT_TRUE(parsePercentiles("90,95,99.9,0,100", p, error)) << error;
    EXPECT_EQ(p, (std::vector<float>{90.0F, 95.0F, 99.9F, 0.0F, 100.0F}));
    EXPECT_FALSE(parsePercentiles("90,", p, error));
    EXPECT_FALSE(parsePercentiles("-1", p, error));
    EXPECT_FALSE(parsePercentiles("ninety", p, error));
}

TEST(DimsText, JoinsExtentsWithX)
{
    EXPECT_EQ(kiln::dimsSpec(nvinfer1::Dims{4, {1, 3, 224, 224}}), "1x3x224x224");
    EXPECT_EQ(kiln::dimsSpec(nvinfer1::Dims{0, {}}), "");
}

TEST(CheckedNumbers, IntegersInRangeOrAnErrorNamingTheFlag)
{
    int64_t value = 0;
    std::string error;
    EXPECT_TRUE(parseInteger("--iterations", "42", 1, 100, value, error));
    EXPECT_EQ(value, 42);
    for (char const* bad : {"", "-5", "0", "101", "4x", " 4", "+4", "0x10", "99999999999999999999"})
    {
        value = 7;
        EXPECT_FALSE(parseInteger("--iterations", bad, 1, 100, value, error)) << bad;
        EXPECT_EQ(value, 7) << "unchanged on error";
        EXPECT_EQ(error.rfind(std::string("--iterations: \"") + bad + "\" is not valid", 0), 0U) << error;
    }
    EXPECT_FALSE(parseInteger("--iterations", "99999999999999999999", 1, 100, value, error));
    EXPECT_TRUE(error.find("(it overflows)") != std::string::npos) << error;
}

TEST(CheckedNumbers, RealsAreFiniteAndInRange)
{
    double value = 0;
    std::string error;
    EXPECT_TRUE(parseReal("--duration", "1.5", 0, 10, value, error));
    EXPECT_EQ(value, 1.5);
    for (char const* bad : {"", "-1", "nan", "inf", "1e999", "11", "1.5s"})
    {
        EXPECT_FALSE(parseReal("--duration", bad, 0, 10, value, error)) << bad;
        EXPECT_EQ(error.rfind(std::string("--duration: \"") + bad + "\" is not valid", 0), 0U) << error;
    }
}

TEST(MemPoolSizes, SizesThatOverflowAreRefused)
{
    std::vector<PoolSize> pools;
    std::string error;
    EXPECT_FALSE(parseMemPoolSizes("workspace:99999999999999999999", pools, error));
    EXPECT_EQ(
        error, "\"workspace:99999999999999999999\": the size overflows; a pool is at most 2^63 - 1 bytes (8 EiB)");
    EXPECT_FALSE(parseMemPoolSizes("workspace:8589934592G", pools, error)) << "2^33 GiB = 2^63 bytes";
    ASSERT_TRUE(parseMemPoolSizes("workspace:8589934591G", pools, error)) << error;
    EXPECT_EQ(pools[0].bytes, (size_t{8589934591} << 30U));
}

TEST(ShapeSpecs, ExtentsThatOverflowAreRefused)
{
    std::vector<ShapeSpec> specs;
    std::string error;
    EXPECT_FALSE(parseShapeSpecs("x:1x99999999999999999999", specs, error));
    EXPECT_EQ(error,
        "\"x:1x99999999999999999999\": \"99999999999999999999\" is not a dimension (it overflows a "
        "64-bit extent); expected extents like 1x3x224x224");
    EXPECT_FALSE(parseShapeSpecs("x:1x-3", specs, error));
    EXPECT_TRUE(error.find("\"-3\" is not a dimension; expected") != std::string::npos) << error;
}

} // namespace
