#include "statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::cli
{

Statistics summarize(std::vector<double> values, std::vector<float> const& percentiles)
{
    Statistics s;
    s.percentiles.assign(percentiles.size(), 0.0);
    if (values.empty())
    {
        return s;
    }
    std::sort(values.begin(), values.end());
    size_t const n = values.size();
    s.min = values.front();
    s.max = values.back();
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
    s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    for (size_t i = 0; i < percentiles.size(); ++i)
    {
        // In float, as trtexec computes it, so both pick the same sample.
        auto const excluded = static_cast<int64_t>((1.0F - percentiles[i] / 100.0F) * static_cast<float>(n));
        int64_t const index = std::max<int64_t>(static_cast<int64_t>(n) - 1 - excluded, 0);
        s.percentiles[i] = values[static_cast<size_t>(index)];
    }
    double squares = 0;
    for (double v : values)
    {
        squares += (v - s.mean) * (v - s.mean);
    }
    double const deviation = std::sqrt(squares / static_cast<double>(n));
    s.coefficientOfVariation = s.mean > 0 ? deviation / s.mean : 0.0;
    return s;
}

} // namespace kiln::cli
