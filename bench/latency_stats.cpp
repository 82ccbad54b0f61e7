#include "latency_stats.h"

#include <algorithm>

namespace kiln_bench
{

LatencySummary summarize(std::vector<double> timingsMs)
{
    LatencySummary summary;
    summary.runs = static_cast<int>(timingsMs.size());
    if (timingsMs.empty())
    {
        return summary;
    }
    std::sort(timingsMs.begin(), timingsMs.end());
    size_t const middle = timingsMs.size() / 2;
    summary.medianMs = timingsMs.size() % 2 == 1 ? timingsMs[middle]
                                                 : 0.5 * (timingsMs[middle - 1] + timingsMs[middle]);
    summary.minMs = timingsMs.front();
    return summary;
}

} // namespace kiln_bench
