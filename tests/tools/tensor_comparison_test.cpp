// Element-wise comparison with atol and rtol, as numpy.allclose defines it.
#include "tensor_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace
{

using namespace kiln::cli;

HostTensor floats(std::vector<float> const& values)
{
    HostTensor t{"t", nvinfer1::DataType::kFLOAT, nvinfer1::Dims{1, {static_cast<int64_t>(values.size())}}, {}};
    t.bytes.resize(values.size() * 4);
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

TEST(TensorComparison, EqualTensorsPass)
{
    auto const c = compareTensors(floats({1, 2, 3}), floats({1, 2, 3}), {0, 0});
    EXPECT_TRUE(c.passed());
    EXPECT_EQ(c.maxAbsDiff, 0);
    EXPECT_EQ(c.count, 3);
}

TEST(TensorComparison, ToleranceIsAtolPlusRtolTimesTheReference)
{
    // |100.5 - 100| = 0.5 <= 0.1 + 0.01 * 100 = 1.1 passes; |1.5 - 1| = 0.5 > 0.1 + 0.01 fails.
    auto const c = compareTensors(floats({100.5F, 1.5F}), floats({100, 1}), {0.1, 0.01});
    EXPECT_FALSE(c.passed());
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_EQ(c.worstIndex, 1);
    EXPECT_DOUBLE_EQ(c.maxAbsDiff, 0.5);
    EXPECT_DOUBLE_EQ(c.maxRelDiff, 0.5);
    EXPECT_NE(c.describe().find("1 of 2 elements outside the tolerance"), std::string::npos) << c.describe();
}

TEST(TensorComparison, NanMatchesOnlyNan)
{
    EXPECT_TRUE(compareTensors(floats({NAN, 1}), floats({NAN, 1}), {0, 0}).passed());
    EXPECT_FALSE(compareTensors(floats({NAN}), floats({0}), {1, 1}).passed());
    EXPECT_TRUE(compareTensors(floats({INFINITY}), floats({INFINITY}), {0, 0}).passed());
}

TEST(TensorComparison, DifferentShapesFail)
{
    auto const c = compareTensors(floats({1, 2}), floats({1, 2, 3}), {1, 1});
    EXPECT_FALSE(c.passed());
    EXPECT_EQ(c.describe(), "the shapes differ");
}

TEST(TensorComparison, HalfValuesAreReadAsNumbers)
{
    HostTensor half{"h", nvinfer1::DataType::kHALF, nvinfer1::Dims{1, {2}}, {0x00, 0x3C, 0x00, 0xC0}}; // 1.0, -2.0
    EXPECT_EQ(half.value(0), 1.0);
    EXPECT_EQ(half.value(1), -2.0);
    EXPECT_TRUE(compareTensors(half, floats({1, -2}), {0, 0}).passed());
}

} // namespace
