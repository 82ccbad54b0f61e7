// Checks on the classifier output that catch a mis-wired network or a broken batch dimension.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln_bench
{

struct LogitsRange
{
    float lowest{0.0F};
    float highest{0.0F};
};

//! Empty when logits ([batch, classes], row-major) are all finite, no row is constant (a network that
//! lost its input gives constant or zero rows) and no two rows are equal although the images differ.
//! Otherwise, what is wrong.
std::string checkLogits(std::vector<float> const& logits, int64_t batch, int64_t classes);

LogitsRange rangeOf(std::vector<float> const& values);

//! The largest |a[i] - b[i]| over count values.
float maxAbsDifference(float const* a, float const* b, int64_t count);

} // namespace kiln_bench
