// The fast path's reductions (oneDNN's reduction, Kiln's loops for sums and means) against the reference kernel: every
// operation over inner, outer, middle, alternating and all axes, keeping the reduced dimensions or not; axes of extent
// 1; empty reductions; global average pooling as ONNX imports it; dynamic shapes; thread counts.
#include "one_layer.h"

namespace kiln::test
{
namespace
{

LayerMaker reduce(ReduceOperation operation, uint32_t axes, bool keepDimensions)
{
    return [=](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        return network.addReduce(*inputs[0], operation, axes, keepDimensions);
    };
}

struct ReduceCase
{
    char const* name;
    Shape input;
    uint32_t axes;
};

int64_t reductionLength(ReduceCase const& c)
{
    int64_t length = 1;
    for (size_t axis = 0; axis < c.input.size(); ++axis)
    {
        length *= ((c.axes >> axis) & 1U) != 0 ? c.input[axis] : 1;
    }
    return length;
}

ReduceOperation const kOperations[] = {
    ReduceOperation::kSUM, ReduceOperation::kPROD, ReduceOperation::kMAX, ReduceOperation::kMIN, ReduceOperation::kAVG};

//! Maximum and minimum are exact; sums, means and products accumulate in FP32 against the reference's double.
Tolerance toleranceOf(ReduceOperation operation, int64_t length)
{
    bool const exact = operation == ReduceOperation::kMAX || operation == ReduceOperation::kMIN;
    return exact ? Tolerance(0.0) : reductionTolerance(length);
}

class FastReduce : public testing::TestWithParam<ReduceCase>
{
};

TEST_P(FastReduce, MatchesTheReferenceKernel)
{
    ReduceCase const& c = GetParam();
    for (ReduceOperation operation : kOperations)
    {
        for (bool keep : {true, false})
        {
            SCOPED_TRACE(std::to_string(static_cast<int32_t>(operation)) + (keep ? ", kept" : ", removed"));
            // Values near 1 in magnitude keep long products finite and away from 0.
            Tensors inputs = randomInputs({c.input}, 1, 0.1F);
            std::vector<float> values = inputs.at("a").floats();
            for (float& value : values)
            {
                value += value < 0.0F ? -0.95F : 0.95F;
            }
            inputs["a"] = fromFloats(c.input, values);
            expectLayerMatches(oneLayer({c.input}, reduce(operation, c.axes, keep)), {inputs},
                toleranceOf(operation, reductionLength(c)), true);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Axes, FastReduce,
    testing::Values(ReduceCase{"GlobalPooling", {2, 16, 7, 7}, 0b1100}, ReduceCase{"InnermostOdd", {3, 5, 13}, 0b100},
        ReduceCase{"Outermost", {9, 4, 6}, 0b001}, ReduceCase{"Middle", {4, 7, 3, 5}, 0b0110},
        ReduceCase{"Alternating", {3, 4, 5, 6, 2}, 0b10101}, ReduceCase{"All", {4, 5, 6}, 0b111},
        ReduceCase{"OneDimensional", {37}, 0b1}, ReduceCase{"LongRows", {2, 5000}, 0b10},
        ReduceCase{"LongRowsAndColumns", {2, 5000}, 0b11},
        ReduceCase{"ExtentsOfOneAmongTheAxes", {1, 6, 1, 5, 1}, 0b01101},
        ReduceCase{"SevenDimensional", {2, 3, 2, 2, 3, 2, 2}, 0b0101001},
        // ResNeSt's split attention sums the radix groups of [N, 2, C, H, W]: rows of more than 16,384 elements,
        // each summed column by column in stretches (the last one shorter).
        ReduceCase{"FewLongRows", {2, 3, 8, 48, 48}, 0b00010},
        // Its global average of [N, C, H, W] row-major: each row of H * W summed on its own.
        ReduceCase{"SpatialAxesOfRowMajorActivations", {1, 40, 56, 56}, 0b1100}),
    [](testing::TestParamInfo<ReduceCase> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastReduce, OnlyAxesOfExtentOneLeaveTheValuesAsTheyAre)
{
    Shape const shape{3, 1, 4, 1};
    for (ReduceOperation operation : kOperations)
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(
            oneLayer({shape}, reduce(operation, 0b1010, false)), {randomInputs({shape}, 2)}, Tolerance(0.0), true);
    }
}

TEST(FastReduce, EmptyReductionsGiveWhatTheReferenceGives)
{
    // Zero, one, -infinity, infinity and NaN (the mean of nothing).
    Shape const shape{2, 0, 3};
    for (ReduceOperation operation : kOperations)
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(
            oneLayer({shape}, reduce(operation, 0b010, true)), {randomInputs({shape}, 3)}, Tolerance(0.0), true);
    }
}

TEST(FastReduce, ResNetsGlobalAveragePoolingAsOnnxImportsIt)
{
    // GlobalAveragePool and ReduceMean over the spatial axes become this layer (src/onnx/importers/pool.cpp).
    Shape const shape{1, 512, 7, 7};
    expectLayerMatches(oneLayer({shape}, reduce(ReduceOperation::kAVG, 0b1100, true)), {randomInputs({shape}, 4)},
        reductionTolerance(49), true);
}

TEST(FastReduceShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("a", OptProfileSelector::kMIN, Dims3{1, 4, 1});
        shapes->setDimensions("a", OptProfileSelector::kOPT, Dims3{2, 4, 6});
        shapes->setDimensions("a", OptProfileSelector::kMAX, Dims3{5, 4, 9});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{randomInputs({{2, 4, 6}}, 5), randomInputs({{5, 4, 9}}, 6),
        randomInputs({{1, 4, 1}}, 7), randomInputs({{3, 4, 2}}, 8), randomInputs({{2, 4, 6}}, 9)};
    expectLayerMatches(oneLayer({{-1, 4, -1}}, reduce(ReduceOperation::kAVG, 0b101, false)), runs,
        reductionTolerance(45), true, profile);
}

TEST(FastReduceThreads, EveryThreadCountGivesTheSameBits)
{
    Shape const shape{2, 64, 28, 28};
    for (uint32_t axes : {0b1100U, 0b0011U, 0b0101U})
    {
        SCOPED_TRACE(axes);
        expectSameBitsAtEveryThreadCount(
            oneLayer({shape}, reduce(ReduceOperation::kSUM, axes, true)), randomInputs({shape}, 10));
    }
    // Long rows, summed in stretches of columns that the threads share.
    Shape const radix{1, 2, 64, 28, 28};
    expectSameBitsAtEveryThreadCount(
        oneLayer({radix}, reduce(ReduceOperation::kSUM, 0b10, false)), randomInputs({radix}, 11));
}

} // namespace
} // namespace kiln::test
