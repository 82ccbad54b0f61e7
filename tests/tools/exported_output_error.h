// How far an output that `kiln --exportOutput` wrote is from a reference array: the measure of the model zoo's tests.
#pragma once

#include "npy_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::test
{

//! max|actual - expected| / max|expected| over one output of --exportOutput's file (the absolute difference when
//! expected is all zeros); another element count, or a NaN, counts as infinitely far.
inline double scaledError(nlohmann::json const& actual, HostTensor const& expected)
{
    std::vector<float> const reference = expected.floats();
    if (actual["values"].size() != reference.size())
    {
        return INFINITY;
    }
    double largestDifference = 0.0;
    double largestReference = 0.0;
    for (size_t i = 0; i < reference.size(); ++i)
    {
        double const difference = std::fabs(actual["values"][i].get<double>() - reference[i]);
        largestDifference = std::isnan(difference) ? INFINITY : std::max(largestDifference, difference);
        largestReference = std::max(largestReference, std::fabs(static_cast<double>(reference[i])));
    }
    return largestReference > 0.0 ? largestDifference / largestReference : largestDifference;
}

} // namespace kiln::test
