// A shuffle that only permutes axes, in its simplest form, so that the shuffle kernel (shuffle.cu) can tell a copy
// of whole rows from a transpose of the innermost axis and index over the fewest axes. Host code, checked without a
// GPU.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::cuda
{

//! The elements of a contiguous row-major tensor of `extents` moved into a contiguous output whose axis i is the
//! input's axis `order[i]`.
struct AxisPermutation
{
    std::vector<int64_t> extents;
    std::vector<int32_t> order;
};

//! The same movement with extents of 1 left out and input axes that stay neighbours, in order, in the output merged
//! into one: [2, 128, 12, 64] by (0, 2, 3, 1) is [2, 128, 768] by (0, 2, 1). A movement that keeps every element in
//! place becomes rank 1 with order (0). Expects a valid permutation.
AxisPermutation simplifyPermutation(AxisPermutation const& permutation);

//! A shuffle (first transpose of the input's rank, then a reshape to `reshaped`'s extents, then the second transpose:
//! output axis i is `reshaped` axis second[i]) as one permutation of the input's elements, where it is one: either
//! transpose is the identity, or the reshape keeps the first transpose's extents. Otherwise none.
std::optional<AxisPermutation> shuffleAsPermutation(
    std::vector<int32_t> const& first, std::vector<int32_t> const& second, Shape const& input, Shape const& reshaped);

//! A shuffle's transposes and shapes over its tensors as they lie in memory (`first` over `input`, `second` onto
//! `output`, as ShuffleParams has them).
struct StoredShuffle
{
    std::vector<int32_t> first;
    std::vector<int32_t> second;
    Shape input;
    Shape output;
};

//! The shuffle of an input stored in `inputFormat` into an output stored in `outputFormat` (kLINEAR or kHWC), as a
//! shuffle of the stored elements: the input's axis order folded into the first transpose, the output's into the
//! second. So a shuffle runs on channels-last tensors as they are, with no conversion on either side; moving the
//! channels last ((0, 2, 3, 1) of a kHWC tensor into a linear one), or back, becomes a copy.
StoredShuffle storedShuffle(std::vector<int32_t> const& first, std::vector<int32_t> const& second, Shape const& input,
    TensorFormat inputFormat, Shape const& output, TensorFormat outputFormat);

} // namespace kiln::cuda
