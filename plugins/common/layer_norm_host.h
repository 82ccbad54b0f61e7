// Layer normalization of one row on the host, as the BERT plugins define it: the mean and the biased variance of
// the row (accumulated in double, so long rows lose nothing), then y = gamma (x - mean) / sqrt(var + epsilon) + beta.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace kiln::plugins
{

//! The epsilon the BERT plugins add to the variance. NVIDIA's kernels add the element type's machine epsilon (since
//! February 2024) so that a constant row does not divide by zero; Kiln computes in float, so it adds float's.
constexpr float kBertLayerNormEpsilon = FLT_EPSILON;

//! Normalizes `row` (`width` floats) in place; gamma and beta hold `width` values each.
inline void layerNormRow(float* row, int64_t width, float const* gamma, float const* beta, float epsilon)
{
    double sum = 0.0;
    for (int64_t i = 0; i < width; ++i)
    {
        sum += row[i];
    }
    double const mean = sum / static_cast<double>(width);
    double squares = 0.0;
    for (int64_t i = 0; i < width; ++i)
    {
        double const centered = row[i] - mean;
        squares += centered * centered;
    }
    double const rstd = 1.0 / std::sqrt(squares / static_cast<double>(width) + epsilon);
    for (int64_t i = 0; i < width; ++i)
    {
        row[i] = static_cast<float>(gamma[i] * ((row[i] - mean) * rstd) + beta[i]);
    }
}

} // namespace kiln::plugins
