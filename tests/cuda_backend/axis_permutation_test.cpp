// Shuffles as permutations of axes (backend/cuda/kernels/tensor/axis_permutation.h), without a GPU: the simplified form
// the shuffle kernel chooses by (rows kept whole, the innermost axis moved, a copy), which shuffles are one
// permutation, and shuffles over channels-last tensors as they lie in memory.
#include "backend/cuda/kernels/tensor/axis_permutation.h"

#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <vector>

namespace
{

using kiln::Shape;
using kiln::TensorFormat;
using kiln::cuda::AxisPermutation;
using kiln::cuda::shuffleAsPermutation;
using kiln::cuda::simplifyPermutation;
using kiln::cuda::StoredShuffle;
using kiln::cuda::storedShuffle;
using Order = std::vector<int32_t>;

void expectSimplified(AxisPermutation const& given, Shape const& extents, std::vector<int32_t> const& order)
{
    AxisPermutation const simple = simplifyPermutation(given);
    EXPECT_EQ(simple.extents, extents);
    EXPECT_EQ(simple.order, order);
}

TEST(CudaAxisPermutation, NeighboursThatStayTogetherMerge)
{
    // The attention heads: the split and merge keep the 64-element rows; the keys' transpose moves them.
    expectSimplified({{2, 128, 12, 64}, {0, 2, 1, 3}}, {2, 128, 12, 64}, {0, 2, 1, 3});
    expectSimplified({{2, 128, 12, 64}, {0, 2, 3, 1}}, {2, 128, 768}, {0, 2, 1});
    // NCHW to NHWC: the spatial axes move as one.
    expectSimplified({{8, 3, 224, 224}, {0, 2, 3, 1}}, {8, 3, 224 * 224}, {0, 2, 1});
    // Everything in order but for the outermost pair.
    expectSimplified({{2, 3, 4, 5}, {1, 0, 2, 3}}, {2, 3, 20}, {1, 0, 2});
    // A full reversal merges nothing.
    expectSimplified({{2, 3, 4}, {2, 1, 0}}, {2, 3, 4}, {2, 1, 0});
}

TEST(CudaAxisPermutation, ExtentsOfOneDisappear)
{
    expectSimplified({{1, 128, 1, 64}, {2, 1, 0, 3}}, {128 * 64}, {0});
    expectSimplified({{2, 1, 3}, {2, 0, 1}}, {2, 3}, {1, 0});
    expectSimplified({{1, 1}, {1, 0}}, {1}, {0});
    expectSimplified({{5, 7}, {0, 1}}, {35}, {0});
}

TEST(CudaAxisPermutation, ShufflesThatAreOnePermutation)
{
    // Only a first transpose: the reshape reinterprets its contiguous result.
    std::optional<AxisPermutation> const first = shuffleAsPermutation({1, 0, 2}, {0, 1}, {4, 6, 10}, {24, 10});
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->extents, (Shape{4, 6, 10}));
    EXPECT_EQ(first->order, (std::vector<int32_t>{1, 0, 2}));
    // Only a second transpose: it permutes the reshaped input.
    std::optional<AxisPermutation> const second
        = shuffleAsPermutation({0, 1, 2}, {0, 2, 1, 3}, {2, 128, 768}, {2, 128, 12, 64});
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->extents, (Shape{2, 128, 12, 64}));
    EXPECT_EQ(second->order, (std::vector<int32_t>{0, 2, 1, 3}));
    // Both, around a reshape that keeps the first transpose's extents: output axis i is input axis
    // first[second[i]].
    std::optional<AxisPermutation> const both = shuffleAsPermutation({2, 0, 1}, {2, 1, 0}, {3, 4, 5}, {5, 3, 4});
    ASSERT_TRUE(both.has_value());
    EXPECT_EQ(both->extents, (Shape{3, 4, 5}));
    EXPECT_EQ(both->order, (std::vector<int32_t>{1, 0, 2}));
    // Both, around a true reshape: not one permutation.
    EXPECT_FALSE(shuffleAsPermutation({1, 0, 2}, {2, 0, 1}, {4, 6, 10}, {12, 2, 10}).has_value());
}

//! Row-major index of `position` (one index per axis) in `extents`.
int64_t flatIndex(Shape const& position, Shape const& extents)
{
    int64_t index = 0;
    for (size_t axis = 0; axis < extents.size(); ++axis)
    {
        index = index * extents[axis] + position[axis];
    }
    return index;
}

//! The position (one index per axis) of row-major `index` in `extents`.
Shape positionOf(int64_t index, Shape const& extents)
{
    Shape position(extents.size());
    for (size_t axis = extents.size(); axis-- > 0;)
    {
        position[axis] = index % extents[axis];
        index /= extents[axis];
    }
    return position;
}

//! A shuffle by its definition, over row-major values: output axis i is `reshaped` axis second[i], the reshape
//! reinterprets the first transpose's row-major result, whose axis j is input axis first[j].
std::vector<int> shuffleByDefinition(std::vector<int> const& input, Shape const& inputShape, Order const& first,
    Shape const& reshaped, Order const& second)
{
    Shape transposed(first.size());
    for (size_t j = 0; j < first.size(); ++j)
    {
        transposed[j] = inputShape[static_cast<size_t>(first[j])];
    }
    Shape outputShape(second.size());
    for (size_t i = 0; i < second.size(); ++i)
    {
        outputShape[i] = reshaped[static_cast<size_t>(second[i])];
    }
    std::vector<int> output(input.size());
    for (int64_t o = 0; o < static_cast<int64_t>(output.size()); ++o)
    {
        Shape const out = positionOf(o, outputShape);
        Shape inReshaped(reshaped.size());
        for (size_t i = 0; i < second.size(); ++i)
        {
            inReshaped[static_cast<size_t>(second[i])] = out[i];
        }
        Shape const inTransposed = positionOf(flatIndex(inReshaped, reshaped), transposed);
        Shape in(inputShape.size());
        for (size_t j = 0; j < first.size(); ++j)
        {
            in[static_cast<size_t>(first[j])] = inTransposed[j];
        }
        output[static_cast<size_t>(o)] = input[static_cast<size_t>(flatIndex(in, inputShape))];
    }
    return output;
}

//! Row-major values of `shape` laid out as `format` stores them (kHWC: the channel axis, 1, innermost), written out
//! by hand for 4-D tensors.
std::vector<int> stored(std::vector<int> const& values, Shape const& shape, TensorFormat format)
{
    if (format == TensorFormat::kLINEAR)
    {
        return values;
    }
    Shape const memory{shape[0], shape[2], shape[3], shape[1]};
    std::vector<int> result(values.size());
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i)
    {
        Shape const p = positionOf(i, shape); // n, c, h, w
        result[static_cast<size_t>(flatIndex({p[0], p[2], p[3], p[1]}, memory))] = values[static_cast<size_t>(i)];
    }
    return result;
}

//! The reshape's extents of a stored shuffle: its output axis i is the reshape's axis second[i].
Shape reshapedOf(StoredShuffle const& s)
{
    Shape reshaped(s.output.size());
    for (size_t i = 0; i < s.second.size(); ++i)
    {
        reshaped[static_cast<size_t>(s.second[i])] = s.output[i];
    }
    return reshaped;
}

//! Checks that the stored form of a shuffle, run on the input as stored, writes the output as stored.
void expectStoredShuffleAgrees(Shape const& input, TensorFormat inputFormat, Order const& first, Shape const& reshaped,
    Order const& second, TensorFormat outputFormat)
{
    std::vector<int> values(static_cast<size_t>(kiln::volume(input)));
    std::iota(values.begin(), values.end(), 0);
    Shape output(second.size());
    for (size_t i = 0; i < second.size(); ++i)
    {
        output[i] = reshaped[static_cast<size_t>(second[i])];
    }
    std::vector<int> const expected
        = stored(shuffleByDefinition(values, input, first, reshaped, second), output, outputFormat);
    StoredShuffle const s = storedShuffle(first, second, input, inputFormat, output, outputFormat);
    EXPECT_EQ(
        shuffleByDefinition(stored(values, input, inputFormat), s.input, s.first, reshapedOf(s), s.second), expected);
}

//! The simplified order of a stored shuffle that is one permutation: (0) for a copy.
Order simplifiedOrderOf(StoredShuffle const& s)
{
    std::optional<AxisPermutation> const p = shuffleAsPermutation(s.first, s.second, s.input, reshapedOf(s));
    EXPECT_TRUE(p.has_value());
    return p ? simplifyPermutation(*p).order : Order{};
}

TEST(CudaAxisPermutation, ChannelsMovedLastOutOfAChannelsLastTensorAreACopy)
{
    // ConvNeXt's permute after its depthwise convolution: [1, 96, 56, 56] by (0, 2, 3, 1), read as stored (kHWC).
    StoredShuffle const s = storedShuffle(
        {0, 2, 3, 1}, {0, 1, 2, 3}, {1, 96, 56, 56}, TensorFormat::kHWC, {1, 56, 56, 96}, TensorFormat::kLINEAR);
    EXPECT_EQ(s.input, (Shape{1, 56, 56, 96}));
    EXPECT_EQ(s.first, (Order{0, 1, 2, 3}));
    EXPECT_EQ(s.output, (Shape{1, 56, 56, 96}));
    EXPECT_EQ(simplifiedOrderOf(s), (Order{0}));
}

TEST(CudaAxisPermutation, ChannelsMovedBackIntoAChannelsLastTensorAreACopy)
{
    // And back, written as stored (kHWC): (0, 3, 1, 2) of [1, 56, 56, 96].
    StoredShuffle const s = storedShuffle(
        {0, 3, 1, 2}, {0, 1, 2, 3}, {1, 56, 56, 96}, TensorFormat::kLINEAR, {1, 96, 56, 56}, TensorFormat::kHWC);
    EXPECT_EQ(s.input, (Shape{1, 56, 56, 96}));
    EXPECT_EQ(s.output, (Shape{1, 56, 56, 96}));
    EXPECT_EQ(s.second, (Order{0, 2, 3, 1}));
    EXPECT_EQ(simplifiedOrderOf(s), (Order{0}));
}

TEST(CudaAxisPermutation, AShuffleOfStoredElementsAgreesWithTheShuffleByDefinition)
{
    TensorFormat const linear = TensorFormat::kLINEAR;
    TensorFormat const hwc = TensorFormat::kHWC;
    // Out of channels-last: channels last, then flattened (a transformer's patches); the spatial axes swapped.
    expectStoredShuffleAgrees({2, 3, 4, 5}, hwc, {0, 2, 3, 1}, {2, 20, 3}, {0, 1, 2}, linear);
    expectStoredShuffleAgrees({2, 3, 4, 5}, hwc, {0, 1, 3, 2}, {2, 3, 5, 4}, {0, 1, 2, 3}, linear);
    // Into channels-last: channels moved back; a reshape from rows of channels.
    expectStoredShuffleAgrees({2, 4, 5, 3}, linear, {0, 3, 1, 2}, {2, 3, 4, 5}, {0, 1, 2, 3}, hwc);
    expectStoredShuffleAgrees({2, 20, 3}, linear, {0, 2, 1}, {2, 3, 4, 5}, {0, 1, 2, 3}, hwc);
    // Both sides channels-last, with a second transpose that swaps the spatial axes.
    expectStoredShuffleAgrees({2, 3, 4, 5}, hwc, {0, 1, 2, 3}, {2, 3, 4, 5}, {0, 1, 3, 2}, hwc);
}

} // namespace
