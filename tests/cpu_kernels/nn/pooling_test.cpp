#include "backend/cpu/kernels/nn/pooling.h"
#include "backend/shared/pooling_geometry.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using backend::poolingOutputShape;
using nvinfer1::PaddingMode;
using nvinfer1::PoolingType;

HostTensor pool(network::PoolingParams const& params, HostTensor const& input, DataType outputType = DataType::kFLOAT)
{
    HostTensor output = zeros(poolingOutputShape(input.shape, params), outputType);
    runPooling(params, input.constView(), output.view());
    return output;
}

network::PoolingParams window(PoolingType type, Shape const& size, Shape const& stride)
{
    network::PoolingParams params;
    params.poolingType = type;
    params.windowSize = dimsOf(size);
    params.stride = dimsOf(stride);
    return params;
}

HostTensor const kFourByFour = fromFloats({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});

TEST(Pooling, MaxAverageAndBlendByHand)
{
    // 2x2 windows at stride 2 over 1..16: maxima 6, 8, 14, 16; means 3.5, 5.5, 11.5, 13.5.
    HostTensor output = pool(window(PoolingType::kMAX, {2, 2}, {2, 2}), kFourByFour);
    EXPECT_EQ(output.shape, (Shape{1, 1, 2, 2}));
    expectClose(output.floats(), {6, 8, 14, 16}, 0.0F);
    expectClose(
        pool(window(PoolingType::kAVERAGE, {2, 2}, {2, 2}), kFourByFour).floats(), {3.5, 5.5, 11.5, 13.5}, 0.0F);
    // Blend 0.25: 0.75 * max + 0.25 * average.
    network::PoolingParams blend = window(PoolingType::kMAX_AVERAGE_BLEND, {2, 2}, {2, 2});
    blend.blendFactor = 0.25F;
    expectClose(pool(blend, kFourByFour).floats(), {5.375F, 7.375F, 13.375F, 15.375F}, 0.0F);
}

TEST(Pooling, AveragePaddingCountedOrNot)
{
    // 2x2 windows at stride 1 with one row and column of padding before: O = 3x3.
    HostTensor const input = fromFloats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    network::PoolingParams params = window(PoolingType::kAVERAGE, {2, 2}, {1, 1});
    params.prePadding = dimsOf({1, 1});
    HostTensor const excluded = pool(params, input);
    EXPECT_EQ(excluded.shape, (Shape{1, 1, 3, 3}));
    // Corner window holds x(0,0) only; edge windows hold two elements; inner windows four.
    expectClose(excluded.floats(), {1, 1.5, 2.5, 2.5, 3, 4, 5.5, 6, 7}, 0.0F);
    params.averageCountExcludesPadding = false;
    expectClose(pool(params, input).floats(), {0.25, 0.75, 1.25, 1.25, 3, 4, 2.75, 6, 7}, 0.0F);
}

TEST(Pooling, IncludedPaddingStopsAtThePaddedInput)
{
    // [1..5], window 2, stride 2. Rounding up adds a window [4, 6) whose second slot lies beyond the (unpadded)
    // input: it is neither input nor padding, so it is not counted even when padding is.
    HostTensor const input = fromFloats({1, 1, 5}, {1, 2, 3, 4, 5});
    network::PoolingParams params = window(PoolingType::kAVERAGE, {2}, {2});
    params.paddingMode = PaddingMode::kEXPLICIT_ROUND_UP;
    params.averageCountExcludesPadding = false;
    expectClose(pool(params, input).floats(), {1.5, 3.5, 5}, 0.0F);
    // With a post-padding of 1 (rounding down) that slot is padding: counted (2.5) or not (5).
    params.paddingMode = PaddingMode::kEXPLICIT_ROUND_DOWN;
    params.postPadding = dimsOf({1});
    expectClose(pool(params, input).floats(), {1.5, 3.5, 2.5}, 0.0F);
    params.averageCountExcludesPadding = true;
    expectClose(pool(params, input).floats(), {1.5, 3.5, 5}, 0.0F);
}

TEST(Pooling, MaxIgnoresPaddingForNegativeInputs)
{
    HostTensor const input = fromFloats({1, 1, 3}, {-1, -2, -3});
    network::PoolingParams params = window(PoolingType::kMAX, {2}, {1});
    params.prePadding = dimsOf({1});
    expectClose(pool(params, input).floats(), {-1, -1, -2}, 0.0F);
}

TEST(Pooling, SamePaddingModes)
{
    HostTensor const input = fromFloats({1, 1, 4}, {1, 2, 3, 4});
    // Window 3, stride 1: P = 2, one each side.
    network::PoolingParams params = window(PoolingType::kMAX, {3}, {1});
    params.paddingMode = PaddingMode::kSAME_UPPER;
    expectClose(pool(params, input).floats(), {2, 3, 4, 4}, 0.0F);
    params.poolingType = PoolingType::kAVERAGE;
    expectClose(pool(params, input).floats(), {1.5, 2, 3, 3.5}, 0.0F);
    // Even window 2 on [1, 2, 3]: P = 1, after the data (UPPER) or before it (LOWER).
    HostTensor const odd = fromFloats({1, 1, 3}, {1, 2, 3});
    params = window(PoolingType::kMAX, {2}, {1});
    params.paddingMode = PaddingMode::kSAME_UPPER;
    expectClose(pool(params, odd).floats(), {2, 3, 3}, 0.0F);
    params.paddingMode = PaddingMode::kSAME_LOWER;
    expectClose(pool(params, odd).floats(), {1, 2, 3}, 0.0F);
}

TEST(Pooling, GlobalAndThreeDimensional)
{
    HostTensor const input = fromFloats({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    HostTensor const average = pool(window(PoolingType::kAVERAGE, {2, 2}, {}), input);
    EXPECT_EQ(average.shape, (Shape{1, 2, 1, 1}));
    expectClose(average.floats(), {2.5, 6.5}, 0.0F);
    expectClose(pool(window(PoolingType::kMAX, {2, 2}, {}), input).floats(), {4, 8}, 0.0F);
    HostTensor const cube = fromFloats({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    expectClose(pool(window(PoolingType::kMAX, {2, 2, 2}, {}), cube).floats(), {8}, 0.0F);
    expectClose(pool(window(PoolingType::kAVERAGE, {2, 2, 2}, {}), cube).floats(), {4.5}, 0.0F);
}

TEST(Pooling, MaxPropagatesNan)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    HostTensor const input = fromFloats({1, 1, 4}, {1, nan, 3, 4});
    std::vector<float> const result = pool(window(PoolingType::kMAX, {2}, {2}), input).floats();
    EXPECT_TRUE(std::isnan(result[0]));
    EXPECT_EQ(result[1], 4.0F);
}

TEST(Pooling, HalfStorageRoundsTheFloatResult)
{
    std::vector<float> const values{0.1F, 0.2F, 0.3F, 0.7F, 1.1F, 1.3F, 2.9F, 0.01F, 5.5F};
    HostTensor const halfInput = fromFloats({1, 1, 3, 3}, values, DataType::kHALF);
    network::PoolingParams params = window(PoolingType::kAVERAGE, {2, 2}, {1, 1});
    HostTensor const halfOutput = pool(params, halfInput, DataType::kHALF);
    expectHalfRoundingOf(halfOutput, pool(params, fromFloats({1, 1, 3, 3}, halfInput.floats())));
}

TEST(Pooling, EmptyAndInvalid)
{
    HostTensor const input = zeros({2, 0, 4, 4});
    network::PoolingParams params = window(PoolingType::kMAX, {2, 2}, {2, 2});
    HostTensor output = zeros(poolingOutputShape(input.shape, params));
    EXPECT_EQ(output.shape, (Shape{2, 0, 2, 2}));
    EXPECT_NO_THROW(runPooling(params, input.constView(), output.view()));
    EXPECT_THROW(poolingOutputShape({1, 1, 1, 1}, params), std::invalid_argument); // window larger than input
    HostTensor wrong = zeros({1, 1, 3, 3});
    EXPECT_THROW(runPooling(params, kFourByFour.constView(), wrong.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
