#include "tensor_comparison.h"

#include "spec_parsing.h"

#include <cmath>
#include <sstream>

namespace kiln::cli
{

TensorComparison compareTensors(HostTensor const& actual, HostTensor const& reference, Tolerance const& tolerance)
{
    TensorComparison c;
    c.shapesMatch = dimsSpec(actual.dims) == dimsSpec(reference.dims) && actual.dims.nbDims == reference.dims.nbDims;
    if (!c.shapesMatch)
    {
        return c;
    }
    c.count = reference.elementCount();
    double worstMismatch = -1;
    for (int64_t i = 0; i < c.count; ++i)
    {
        double const a = actual.value(i);
        double const r = reference.value(i);
        if (std::isnan(a) || std::isnan(r))
        {
            if (std::isnan(a) != std::isnan(r))
            {
                ++c.mismatches;
                if (c.worstIndex < 0)
                {
                    c.worstIndex = i;
                    c.worstActual = a;
                    c.worstReference = r;
                }
            }
            continue;
        }
        double const diff = a == r ? 0.0 : std::fabs(a - r); // a == r also covers equal infinities
        double const rel = r != 0 ? diff / std::fabs(r) : (diff == 0 ? 0.0 : INFINITY);
        c.maxAbsDiff = std::max(c.maxAbsDiff, diff);
        c.maxRelDiff = std::max(c.maxRelDiff, rel);
        // diff == 0 first: for infinite references rtol * |r| is infinite and 0 * inf is NaN.
        if (diff != 0 && !(diff <= tolerance.atol + tolerance.rtol * std::fabs(r)))
        {
            ++c.mismatches;
            if (diff > worstMismatch)
            {
                worstMismatch = diff;
                c.worstIndex = i;
                c.worstActual = a;
                c.worstReference = r;
            }
        }
    }
    return c;
}

std::string TensorComparison::describe() const
{
    if (!shapesMatch)
    {
        return "the shapes differ";
    }
    std::ostringstream s;
    s << "max abs diff = " << maxAbsDiff << ", max rel diff = " << maxRelDiff << ", " << mismatches << " of " << count
      << " elements outside the tolerance";
    if (worstIndex >= 0)
    {
        s << " (worst at element " << worstIndex << ": " << worstActual << " vs reference " << worstReference << ")";
    }
    return s.str();
}

} // namespace kiln::cli
