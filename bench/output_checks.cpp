#include "output_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln_bench
{

std::string checkLogits(std::vector<float> const& logits, int64_t batch, int64_t classes)
{
    if (static_cast<int64_t>(logits.size()) != batch * classes)
    {
        return "expected " + std::to_string(batch * classes) + " values, got " + std::to_string(logits.size());
    }
    for (size_t i = 0; i < logits.size(); ++i)
    {
        if (!std::isfinite(logits[i]))
        {
            return "value " + std::to_string(i) + " is not finite (" + std::to_string(logits[i]) + ")";
        }
    }
    for (int64_t row = 0; row < batch; ++row)
    {
        float const* values = logits.data() + row * classes;
        if (std::all_of(values, values + classes, [&](float v) { return v == values[0]; }))
        {
            return "row " + std::to_string(row) + " is constant (" + std::to_string(values[0]) + ")";
        }
        // The benchmark's images are all different, so equal rows mean one image was read for another.
        for (int64_t other = 0; other < row; ++other)
        {
            if (maxAbsDifference(values, logits.data() + other * classes, classes) == 0.0F)
            {
                return "rows " + std::to_string(other) + " and " + std::to_string(row) + " are identical";
            }
        }
    }
    return {};
}

LogitsRange rangeOf(std::vector<float> const& values)
{
    if (values.empty())
    {
        return {};
    }
    auto const [lowest, highest] = std::minmax_element(values.begin(), values.end());
    return {*lowest, *highest};
}

float maxAbsDifference(float const* a, float const* b, int64_t count)
{
    float largest = 0.0F;
    for (int64_t i = 0; i < count; ++i)
    {
        float const difference = std::fabs(a[i] - b[i]);
        // NaN compares false everywhere, so it is caught explicitly rather than ignored.
        if (std::isnan(difference))
        {
            return std::numeric_limits<float>::quiet_NaN();
        }
        largest = std::max(largest, difference);
    }
    return largest;
}

} // namespace kiln_bench
