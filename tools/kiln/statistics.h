// trtexec's summary statistics of a metric: min, max, mean, median and percentiles.
#pragma once

#include <vector>

namespace kiln::cli
{

struct Statistics
{
    double min{0};
    double max{0};
    double mean{0};
    double median{0};
    std::vector<double> percentiles;  //!< one per requested percentile, in request order
    double coefficientOfVariation{0}; //!< standard deviation / mean (0 when the mean is 0)
};

//! The median is the middle value, or the mean of the two middle ones. Percentile p is the value
//! below which the fraction p/100 of the sorted values lies: trtexec drops the largest
//! floor((1 - p/100) * n) values and takes the largest of the rest. Empty input gives zeros.
Statistics summarize(std::vector<double> values, std::vector<float> const& percentiles);

} // namespace kiln::cli
