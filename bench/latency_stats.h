// Summary statistics of repeated timings.
#pragma once

#include <vector>

namespace kiln_bench
{

struct LatencySummary
{
    double medianMs{0.0};
    double minMs{0.0};
    int runs{0};
};

//! The median (mean of the middle two for an even count) and the minimum. The median is the figure to
//! compare, because a run slowed by another process on the machine moves it little; the minimum shows
//! what the code can do when nothing interferes. Empty input gives zeros.
LatencySummary summarize(std::vector<double> timingsMs);

} // namespace kiln_bench
