// The tests' one element-wise comparison: actual values against expected ones within absolute + relative tolerance.
#pragma once

#include "host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::test
{

//! How far a value may lie from the expected one: absolute + relative * |expected|. A bare number converts to an
//! absolute tolerance (relative 0): expectClose(a, e, 1e-5F) allows 1e-5, expectClose(a, e, {1e-5, 1e-4}) both.
struct Tolerance
{
    Tolerance(double absoluteTolerance, double relativeTolerance = 0.0) // NOLINT: a bare number is an absolute one
        : absolute(absoluteTolerance)
        , relative(relativeTolerance)
    {
    }

    double absolute;
    double relative;
};

//! Element by element, with `what` naming the values in failure messages. A NaN expected needs a NaN; equal values
//! always pass, so infinities match themselves (their difference is NaN). The sizes must agree. T is float, or double
//! for references worked out in double (float results widen exactly, as EXPECT_NEAR widens them).
template <typename T>
void expectClose(std::vector<T> const& actual, std::type_identity_t<std::vector<T>> const& expected,
    Tolerance tolerance, std::string const& what = "")
{
    std::string const prefix = what.empty() ? "" : what + ": ";
    ASSERT_EQ(actual.size(), expected.size()) << prefix << "the element counts differ";
    for (size_t i = 0; i < actual.size(); ++i)
    {
        if (std::isnan(expected[i]))
        {
            EXPECT_TRUE(std::isnan(actual[i])) << prefix << "element " << i << " is " << actual[i] << ", not NaN";
            continue;
        }
        if (actual[i] == expected[i])
        {
            continue;
        }
        double const bound = tolerance.absolute + tolerance.relative * std::fabs(static_cast<double>(expected[i]));
        EXPECT_NEAR(actual[i], expected[i], bound) << prefix << "element " << i;
    }
}

//! The float case, which also takes braced lists for both arguments.
inline void expectClose(std::vector<float> const& actual, std::vector<float> const& expected, Tolerance tolerance,
    std::string const& what = "")
{
    expectClose<float>(actual, expected, tolerance, what);
}

//! Tensors of one type and shape. Floating-point elements (FP32, FP16, BF16) compare as floats within the tolerance;
//! integer and BOOL elements must be equal.
inline void expectClose(
    HostTensor const& actual, HostTensor const& expected, Tolerance tolerance, std::string const& what = "")
{
    std::string const prefix = what.empty() ? "" : what + ": ";
    ASSERT_EQ(dataTypeName(actual.type), dataTypeName(expected.type)) << prefix << "the types differ";
    ASSERT_EQ(actual.shape, expected.shape) << prefix << "the shapes differ";
    if (isFloatType(expected.type))
    {
        expectClose(actual.floats(), expected.floats(), tolerance, what);
        return;
    }
    EXPECT_EQ(actual.ints(), expected.ints()) << prefix << "the " << dataTypeName(expected.type) << " elements differ";
}

} // namespace kiln::test
