#include "network/fused/fused_normalization.h"

namespace kiln::network
{

bool FusedNormalizationParams::infer(InferenceContext& ctx) const
{
    return ctx.fail("a fused normalization is made by a backend's fusion pass, never added to a network");
}

RowWeight rowWeightOf(Shape const& weight, Shape const& input, int32_t normalizedAxes)
{
    size_t const rank = input.size();
    if (weight.size() != rank || normalizedAxes < 1 || static_cast<size_t>(normalizedAxes) > rank)
    {
        return RowWeight::kNONE;
    }
    size_t const first = rank - static_cast<size_t>(normalizedAxes);
    bool row = true;
    bool one = true;
    for (size_t axis = 0; axis < rank; ++axis)
    {
        if (axis < first)
        {
            row = row && weight[axis] == 1;
            one = one && weight[axis] == 1;
            continue;
        }
        row = row && weight[axis] == input[axis];
        one = one && weight[axis] == 1;
    }
    return row ? RowWeight::kROW : one ? RowWeight::kONE : RowWeight::kNONE;
}

bool broadcastsRows(Shape const& operand, Shape const& output, int32_t normalizedAxes)
{
    size_t const rank = output.size();
    if (operand.size() != rank || normalizedAxes < 1 || static_cast<size_t>(normalizedAxes) > rank)
    {
        return false;
    }
    size_t const first = rank - static_cast<size_t>(normalizedAxes);
    for (size_t axis = 0; axis < rank; ++axis)
    {
        bool const repeats = axis < first && operand[axis] == 1;
        if (operand[axis] != output[axis] && !repeats)
        {
            return false;
        }
    }
    return true;
}

int64_t operandRow(Shape const& operand, Shape const& output, int32_t normalizedAxes, int64_t row)
{
    int64_t result = 0;
    int64_t stride = 1;
    for (size_t axis = output.size() - static_cast<size_t>(normalizedAxes); axis-- > 0;)
    {
        int64_t const coordinate = row % output[axis];
        row /= output[axis];
        result += operand[axis] == 1 ? 0 : coordinate * stride;
        stride *= operand[axis];
    }
    return result;
}

int32_t trailingAxesOf(uint32_t axes, int32_t rank)
{
    if (rank < 1 || rank > 31 || axes == 0 || (axes >> rank) != 0)
    {
        return 0;
    }
    int32_t first = rank;
    while (first > 0 && ((axes >> (first - 1)) & 1U) != 0)
    {
        --first;
    }
    // Every set bit lies in [first, rank): the mask is that run and nothing below it.
    return (axes & ((1U << first) - 1U)) == 0 ? rank - first : 0;
}

} // namespace kiln::network
