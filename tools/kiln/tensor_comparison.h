// Comparing a tensor with its reference, element by element, as numpy.allclose does:
// |actual - reference| <= atol + rtol * |reference|; NaN matches only NaN.
#pragma once

#include "host_tensor.h"

#include <string>

namespace kiln::cli
{

struct Tolerance
{
    double atol{1e-5};
    double rtol{1e-5};
};

struct TensorComparison
{
    bool shapesMatch{true};
    int64_t count{0};
    int64_t mismatches{0};
    double maxAbsDiff{0};
    double maxRelDiff{0};
    int64_t worstIndex{-1}; //!< the first element with the largest absolute difference among mismatches
    double worstActual{0};
    double worstReference{0};

    bool passed() const
    {
        return shapesMatch && mismatches == 0;
    }
    //! "max abs diff = ..., max rel diff = ..., N of M elements outside the tolerance".
    std::string describe() const;
};

TensorComparison compareTensors(HostTensor const& actual, HostTensor const& reference, Tolerance const& tolerance);

} // namespace kiln::cli
