#include "backend/cuda/kernels/tensor/axis_permutation.h"

#include <algorithm>

namespace kiln::cuda
{
namespace
{

bool isIdentity(std::vector<int32_t> const& order)
{
    for (size_t i = 0; i < order.size(); ++i)
    {
        if (order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! Input axes that stay neighbours in the output: `first` is the lowest, `count` axes in all.
struct Run
{
    int32_t first;
    int32_t count;
    int32_t position; //!< its place among the runs in output order
};

} // namespace

AxisPermutation simplifyPermutation(AxisPermutation const& permutation)
{
    // Extents of 1 move nothing: leave them out, numbering the other input axes anew.
    std::vector<int32_t> renamed(permutation.extents.size(), -1);
    std::vector<int64_t> extents;
    for (size_t axis = 0; axis < permutation.extents.size(); ++axis)
    {
        if (permutation.extents[axis] != 1)
        {
            renamed[axis] = static_cast<int32_t>(extents.size());
            extents.push_back(permutation.extents[axis]);
        }
    }
    std::vector<int32_t> order;
    for (int32_t source : permutation.order)
    {
        if (renamed[static_cast<size_t>(source)] >= 0)
        {
            order.push_back(renamed[static_cast<size_t>(source)]);
        }
    }
    if (order.empty())
    {
        return AxisPermutation{{1}, {0}};
    }
    std::vector<Run> runs;
    for (size_t i = 0; i < order.size(); ++i)
    {
        if (i > 0 && order[i] == order[i - 1] + 1)
        {
            ++runs.back().count;
        }
        else
        {
            runs.push_back(Run{order[i], 1, static_cast<int32_t>(runs.size())});
        }
    }
    // In input order, each run is one axis of the simplified input.
    std::sort(runs.begin(), runs.end(), [](Run const& a, Run const& b) { return a.first < b.first; });
    AxisPermutation simple{std::vector<int64_t>(runs.size(), 1), std::vector<int32_t>(runs.size(), 0)};
    for (size_t axis = 0; axis < runs.size(); ++axis)
    {
        for (int32_t k = 0; k < runs[axis].count; ++k)
        {
            simple.extents[axis] *= extents[static_cast<size_t>(runs[axis].first + k)];
        }
        simple.order[static_cast<size_t>(runs[axis].position)] = static_cast<int32_t>(axis);
    }
    return simple;
}

std::optional<AxisPermutation> shuffleAsPermutation(
    std::vector<int32_t> const& first, std::vector<int32_t> const& second, Shape const& input, Shape const& reshaped)
{
    if (isIdentity(second))
    {
        // The output is the first transpose's contiguous result, reinterpreted.
        return AxisPermutation{input, first};
    }
    if (isIdentity(first))
    {
        // The reshape reinterprets the input; the second transpose permutes that.
        return AxisPermutation{reshaped, second};
    }
    Shape transposed(input.size());
    for (size_t i = 0; i < input.size(); ++i)
    {
        transposed[i] = input[static_cast<size_t>(first[i])];
    }
    if (transposed != reshaped)
    {
        return std::nullopt;
    }
    // Output axis i is the transposed axis second[i], which is the input's axis first[second[i]].
    AxisPermutation both{input, std::vector<int32_t>(second.size())};
    for (size_t i = 0; i < second.size(); ++i)
    {
        both.order[i] = first[static_cast<size_t>(second[i])];
    }
    return both;
}

StoredShuffle storedShuffle(std::vector<int32_t> const& first, std::vector<int32_t> const& second, Shape const& input,
    TensorFormat inputFormat, Shape const& output, TensorFormat outputFormat)
{
    std::vector<int32_t> const inputAxes = storedAxisOrder(inputFormat, input.size());
    std::vector<int32_t> const outputAxes = storedAxisOrder(outputFormat, output.size());
    StoredShuffle stored{std::vector<int32_t>(first.size()), std::vector<int32_t>(second.size()), Shape(input.size()),
        Shape(output.size())};
    // Logical input axis a lies at memory axis placeOf[a]; the first transpose's axis j, logical axis first[j], is
    // memory axis placeOf[first[j]].
    std::vector<int32_t> placeOf(input.size());
    for (size_t p = 0; p < input.size(); ++p)
    {
        stored.input[p] = input[static_cast<size_t>(inputAxes[p])];
        placeOf[static_cast<size_t>(inputAxes[p])] = static_cast<int32_t>(p);
    }
    for (size_t j = 0; j < first.size(); ++j)
    {
        stored.first[j] = placeOf[static_cast<size_t>(first[j])];
    }
    // Memory axis p of the output is logical output axis outputAxes[p], which the second transpose takes from the
    // reshape's axis second[outputAxes[p]].
    for (size_t p = 0; p < output.size(); ++p)
    {
        stored.output[p] = output[static_cast<size_t>(outputAxes[p])];
        stored.second[p] = second[static_cast<size_t>(outputAxes[p])];
    }
    return stored;
}

} // namespace kiln::cuda
