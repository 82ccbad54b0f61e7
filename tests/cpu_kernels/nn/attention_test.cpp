// The CPU reference of the fused attention layer (network/fused/attention.h, backend/shared/attention_geometry.h):
// values worked by hand, and operands stored with their axes permuted (the transposes the CUDA fusion absorbs) giving
// exactly what the same operands stored as read give, as do operands picked from one tensor that holds all three.
#include "backend/cpu/layer_kernels.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using network::AttentionParams;

std::vector<float> attention(AttentionParams const& params, HostTensor const& q, HostTensor const& k,
    HostTensor const& v, HostTensor const* mask, Shape const& outputShape)
{
    HostTensor output = zeros(outputShape);
    LayerInputs inputs{q.constView(), k.constView(), v.constView()};
    if (mask != nullptr)
    {
        inputs.push_back(mask->constView());
    }
    run(params, inputs, {output.view()});
    return output.floats();
}

TEST(AttentionReference, ByHand)
{
    // One query [1, 0] against keys [1, 0] and [0, 1] (stored by column: [D, Sk]), scale 2: scores [2, 0], so the
    // probabilities are e^2 / (e^2 + 1) and 1 / (e^2 + 1); values [10, 20] and [30, 40].
    AttentionParams params;
    params.scale = 2.0F;
    HostTensor const q = fromFloats({1, 2}, {1, 0});
    HostTensor const k = fromFloats({2, 2}, {1, 0, 0, 1});
    HostTensor const v = fromFloats({2, 2}, {10, 20, 30, 40});
    double const e2 = std::exp(2.0);
    double const p0 = e2 / (e2 + 1.0);
    double const p1 = 1.0 / (e2 + 1.0);
    expectClose(attention(params, q, k, v, nullptr, {1, 2}),
        {static_cast<float>(10 * p0 + 30 * p1), static_cast<float>(20 * p0 + 40 * p1)}, 1e-5F);
    // A mask of -inf on the first key leaves the second alone.
    HostTensor const mask = fromFloats({1, 2}, {-std::numeric_limits<float>::infinity(), 0});
    expectClose(attention(params, q, k, v, &mask, {1, 2}), {30, 40}, 0.0F);
}

TEST(AttentionReference, RoundingsByHand)
{
    // The ByHand case with INT8 roundings (Q -> DQ pairs): the query times 0.3 by 0.25: 0.3 / 0.25 = 1.2 -> 1, so
    // [0.25, 0]; scores [0.5, 0] by 0.4: 1.25 -> 1, so [0.4, 0]; probabilities e^0.4 / (e^0.4 + 1) = 0.5987 and 0.4013
    // by 0.1: 6 and 4, so [0.6, 0.4]; values by 3: 10/3 -> 3, 20/3 -> 7, 10, 40/3 -> 13, so [9, 21] and [30, 39].
    AttentionParams params;
    params.scale = 2.0F;
    auto const int8 = [](float scale, float factor = 1.0F) {
        return network::AttentionRounding{nvinfer1::DataType::kINT8, scale, factor};
    };
    params.queryRounding = int8(0.25F, 0.3F);
    params.scoresRounding = int8(0.4F);
    params.probabilitiesRounding = int8(0.1F);
    params.valuesRounding = int8(3.0F);
    HostTensor const q = fromFloats({1, 2}, {1, 0});
    HostTensor const k = fromFloats({2, 2}, {1, 0, 0, 1});
    HostTensor const v = fromFloats({2, 2}, {10, 20, 30, 40});
    expectClose(attention(params, q, k, v, nullptr, {1, 2}), {0.6F * 9 + 0.4F * 30, 0.6F * 21 + 0.4F * 39}, 1e-5F);
    // FP8 E4M3 keys by 0.5: 1 / 0.5 = 2, exactly on the grid; 0.7 / 0.5 = 1.4 -> 1.375 (steps of 1/8 in [1, 2)).
    AttentionParams fp8;
    fp8.keysRounding = network::AttentionRounding{nvinfer1::DataType::kFP8, 0.5F};
    HostTensor const oneKey = fromFloats({2, 1}, {1, 0.7F});
    HostTensor const one = fromFloats({1, 1}, {5});
    HostTensor const query = fromFloats({1, 2}, {1, 1});
    // One key: its probability is 1 whatever its score, so the output is the value; the score is what is rounded.
    expectClose(attention(fp8, query, oneKey, one, nullptr, {1, 1}), {5}, 0.0F);
    HostTensor const twoKeys = fromFloats({2, 2}, {1, 0, 0.7F, 0});
    HostTensor const values = fromFloats({2, 1}, {1, 0});
    // Scores 1 + 0.6875 against 0: probability e^1.6875 / (e^1.6875 + 1) of the value 1.
    double const e = std::exp(1.6875);
    expectClose(attention(fp8, query, twoKeys, values, nullptr, {1, 1}), {static_cast<float>(e / (e + 1))}, 1e-6F);
}

//! `source` [d0, d1, d2, d3] with its axes 1 and 2 swapped: [d0, d2, d1, d3], as exports transpose heads.
HostTensor swapMiddleAxes(HostTensor const& source)
{
    Shape const& s = source.shape;
    std::vector<float> const in = source.floats();
    std::vector<float> out(in.size());
    for (int64_t a = 0; a < s[0]; ++a)
        for (int64_t b = 0; b < s[1]; ++b)
            for (int64_t c = 0; c < s[2]; ++c)
                for (int64_t d = 0; d < s[3]; ++d)
                {
                    out[static_cast<size_t>(((a * s[2] + c) * s[1] + b) * s[3] + d)]
                        = in[static_cast<size_t>(((a * s[1] + b) * s[2] + c) * s[3] + d)];
                }
    return fromFloats({s[0], s[2], s[1], s[3]}, out);
}

nvinfer1::Permutation order(std::vector<int32_t> const& axes)
{
    nvinfer1::Permutation permutation = network::ShuffleParams::identityPermutation();
    std::copy(axes.begin(), axes.end(), permutation.order);
    return permutation;
}

TEST(AttentionReference, PermutedOperandsReadAsTheTransposesTheyReplace)
{
    // Logical operands [batch 2, heads 3, tokens 5, depth 4]; stored as exports keep them before and after their
    // transposes: [batch, tokens, heads, depth].
    Shape const logical{2, 3, 5, 4};
    int64_t const count = std::accumulate(logical.begin(), logical.end(), int64_t{1}, std::multiplies<>());
    HostTensor const q = fromFloats(logical, smallIntegers(count, 1));
    HostTensor const k = fromFloats(logical, smallIntegers(count, 2)); // by row: [.., Sk, D]
    HostTensor const v = fromFloats(logical, smallIntegers(count, 3));
    HostTensor const mask = fromFloats({2, 1, 1, 5}, {0, 0, 0, -1e4F, 0, 0, -1e4F, 0, 0, 0});
    AttentionParams plain;
    plain.scale = 0.5F;
    plain.keysByRow = true;
    std::vector<float> const expected = attention(plain, q, k, v, &mask, logical);

    AttentionParams permuted = plain;
    permuted.queryAxes = order({0, 2, 1, 3});
    permuted.keyAxes = order({0, 2, 1, 3});
    permuted.valueAxes = order({0, 2, 1, 3});
    permuted.outputAxes = order({0, 2, 1, 3});
    std::vector<float> const stored
        = attention(permuted, swapMiddleAxes(q), swapMiddleAxes(k), swapMiddleAxes(v), &mask, {2, 5, 3, 4});
    EXPECT_EQ(swapMiddleAxes(fromFloats({2, 5, 3, 4}, stored)).floats(), expected);

    // Keys by column, as Transpose(perm 0, 2, 3, 1) of [batch, tokens, heads, depth] makes them: [.., D, Sk].
    AttentionParams byColumn = permuted;
    byColumn.keysByRow = false;
    byColumn.keyAxes = order({0, 2, 3, 1});
    std::vector<float> const fromColumns
        = attention(byColumn, swapMiddleAxes(q), swapMiddleAxes(k), swapMiddleAxes(v), &mask, {2, 5, 3, 4});
    EXPECT_EQ(fromColumns, stored);
}

//! Logical operands [B, H, N, D] stored together as timm's qkv product [B, N, 3, H, D], operand t at index t of axis 2.
HostTensor stackedAsQkv(std::array<HostTensor const*, 3> const& operands)
{
    Shape const& s = operands[0]->shape;
    std::vector<float> stacked(static_cast<size_t>(3 * s[0] * s[1] * s[2] * s[3]));
    for (int64_t t = 0; t < 3; ++t)
    {
        std::vector<float> const in = operands[static_cast<size_t>(t)]->floats();
        for (int64_t b = 0; b < s[0]; ++b)
            for (int64_t h = 0; h < s[1]; ++h)
                for (int64_t n = 0; n < s[2]; ++n)
                    for (int64_t d = 0; d < s[3]; ++d)
                    {
                        stacked[static_cast<size_t>((((b * s[2] + n) * 3 + t) * s[1] + h) * s[3] + d)]
                            = in[static_cast<size_t>(((b * s[1] + h) * s[2] + n) * s[3] + d)];
                    }
    }
    return fromFloats({s[0], s[2], 3, s[1], s[3]}, stacked);
}

TEST(AttentionReference, PickedOperandsReadTheirIndexOfTheTensorThatHoldsThem)
{
    Shape const logical{2, 3, 5, 4};
    int64_t const count = std::accumulate(logical.begin(), logical.end(), int64_t{1}, std::multiplies<>());
    HostTensor const q = fromFloats(logical, smallIntegers(count, 4));
    HostTensor const k = fromFloats(logical, smallIntegers(count, 5)); // by row
    HostTensor const v = fromFloats(logical, smallIntegers(count, 6));
    AttentionParams plain;
    plain.scale = 0.25F;
    plain.keysByRow = true;
    std::vector<float> const expected = attention(plain, q, k, v, nullptr, logical);

    // Each operand's batch, heads, tokens and depth are axes 0, 3, 1 and 4 of [B, N, 3, H, D].
    AttentionParams picked = plain;
    picked.queryAxes = picked.keyAxes = picked.valueAxes = order({0, 3, 1, 4});
    picked.queryPick = {2, 0};
    picked.keyPick = {2, 1};
    picked.valuePick = {2, 2};
    HostTensor const qkv = stackedAsQkv({&q, &k, &v});
    EXPECT_EQ(attention(picked, qkv, qkv, qkv, nullptr, logical), expected);

    // The values picked from index 0 read the query.
    AttentionParams queryAsValues = picked;
    queryAsValues.valuePick = {2, 0};
    EXPECT_EQ(attention(queryAsValues, qkv, qkv, qkv, nullptr, logical), attention(plain, q, k, q, nullptr, logical));

    // An index past the axis, or an axis order that names the picked axis, is refused.
    AttentionParams beyond = picked;
    beyond.keyPick = {2, 3};
    EXPECT_THROW(attention(beyond, qkv, qkv, qkv, nullptr, logical), std::invalid_argument);
    AttentionParams twice = picked;
    twice.queryAxes = order({0, 3, 2, 4});
    EXPECT_THROW(attention(twice, qkv, qkv, qkv, nullptr, logical), std::invalid_argument);
}

TEST(AttentionReference, AnAxisOrderThatIsNoPermutationIsRefused)
{
    AttentionParams params;
    params.queryAxes = order({0, 0});
    HostTensor const a = fromFloats({2, 2}, {1, 2, 3, 4});
    EXPECT_THROW(attention(params, a, a, a, nullptr, {2, 2}), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
