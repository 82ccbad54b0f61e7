// Small helpers that several layer kinds share: argument checks of the add* methods,
// Dims conversions, and the sliding-window output extent as a dimension expression.
#pragma once

#include "core/checked_size.h"
#include "network/inference.h"

#include <NvInfer.h>

#include <optional>
#include <string>
#include <vector>

namespace kiln::network
{

//! False (with an error naming method and what) when weights have a negative count or null values for count > 0.
bool checkWeights(nvinfer1::Weights const& weights, char const* method, char const* what);

//! False (with an error) when dims has a rank outside [minRank, maxRank] or an entry below minValue.
bool checkDims(nvinfer1::Dims const& dims, char const* method, char const* what, int32_t minRank, int32_t maxRank,
    int64_t minValue);

//! Dims of the given rank, every entry value.
nvinfer1::Dims filledDims(int32_t rank, int64_t value);

//! The number of elements of a tensor of `dims`; -1 when an extent is negative or the count overflows int64, so that
//! it equals no real weights count.
int64_t dimsVolume(nvinfer1::Dims const& dims);

std::vector<int64_t> dimsToVector(nvinfer1::Dims const& dims);

//! The output extent of convolution and pooling along one spatial axis (TensorRT's PaddingMode formulas):
//! a null Dim with ctx.fail(...) when the window does not fit a constant input.
Dim slidingWindowExtent(InferenceContext& ctx, Dim input, int64_t window, int64_t stride, int64_t prePadding,
    int64_t postPadding, nvinfer1::PaddingMode mode, int32_t axis);

//! The output extent of a deconvolution along one spatial axis.
Dim transposedWindowExtent(InferenceContext& ctx, Dim input, int64_t window, int64_t stride, int64_t prePadding,
    int64_t postPadding, nvinfer1::PaddingMode mode, int32_t axis);

//! An axis in [-rank, rank) made non-negative; -1 when out of range.
int32_t normalizeAxis(int64_t axis, int32_t rank);

//! The extents when every one is a constant; none when some is known only at run time.
std::optional<std::vector<int64_t>> constantExtents(std::vector<Dim> const& dims);
std::optional<std::vector<int64_t>> constantExtents(nvinfer1::DimsExprs const& dims);

//! The most known values gatherValues makes: shape tensors are short, and a longer result is an ordinary tensor.
constexpr int64_t kMaxGatheredValues = 1 << 16;

//! Known values (TensorFacts::values: row-major, whatever the rank) gathered into a tensor of `extents`: element j
//! takes the value at flat index sourceIndex(coordinates of j), or the whole result is none as soon as
//! sourceIndex gives none (say, an element a slice fills rather than reads).
template <typename SourceIndex>
std::optional<std::vector<nvinfer1::IDimensionExpr const*>> gatherValues(
    std::vector<nvinfer1::IDimensionExpr const*> const& values, std::vector<int64_t> const& extents,
    SourceIndex&& sourceIndex)
{
    // The extents come from the model (a slice's size, say): a count past the bound leaves the values unknown rather
    // than looping over, or allocating, what the model asked for.
    std::optional<int64_t> const count = checkedElementCount(extents);
    if (!count || *count > kMaxGatheredValues)
    {
        return std::nullopt;
    }
    std::vector<nvinfer1::IDimensionExpr const*> result;
    std::vector<int64_t> coordinates(extents.size(), 0);
    for (int64_t j = 0; j < *count; ++j)
    {
        std::optional<int64_t> const from = sourceIndex(coordinates);
        if (!from || *from < 0 || *from >= static_cast<int64_t>(values.size()))
        {
            return std::nullopt;
        }
        result.push_back(values[static_cast<size_t>(*from)]);
        for (size_t axis = extents.size(); axis-- > 0;) // the next coordinates in row-major order
        {
            if (++coordinates[axis] < extents[axis])
            {
                break;
            }
            coordinates[axis] = 0;
        }
    }
    return result;
}

} // namespace kiln::network
