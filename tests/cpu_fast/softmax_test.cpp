// The fast path's softmax against the reference kernel: every axis, long rows, 1-D, masked (-inf) entries as
// attention masks make them, NaN and infinities along an inner axis, dynamic shapes, thread counts; half precision
// falls back to the reference.
#include "fast_path_comparison.h"

#include <limits>

namespace kiln::test
{
namespace
{

NetworkMaker softmaxOf(Shape const& shape, uint32_t axes, DataType type = DataType::kFLOAT)
{
    return [shape, axes, type](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dimsOf(shape));
        ISoftMaxLayer* layer = network.addSoftMax(*x);
        layer->setAxes(axes);
        layer->setName("softmax");
        layer->getOutput(0)->setName("output");
        network.markOutput(*layer->getOutput(0));
    };
}

//! Inputs in [-4, 4): rows whose largest entries dominate, as attention scores do.
HostTensor scores(Shape const& shape, uint32_t seed)
{
    std::vector<float> values = randomTensor(shape, seed).floats();
    for (float& value : values)
    {
        value *= 4.0F;
    }
    return fromFloats(shape, values);
}

TEST(FastSoftMax, EveryAxisMatchesTheReferenceKernel)
{
    Shape const shape{2, 3, 5, 37};
    for (int32_t axis = 0; axis < 4; ++axis)
    {
        std::map<std::string, bool> const layers = expectFastMatchesReference(softmaxOf(shape, 1U << axis),
            {{{"x", scores(shape, static_cast<uint32_t>(axis))}}}, reductionTolerance(shape[axis]));
        EXPECT_EQ(layers, (std::map<std::string, bool>{{"softmax", true}})) << "axis " << axis;
    }
}

TEST(FastSoftMax, LongRowsAndOneDimension)
{
    std::map<std::string, bool> const fast{{"softmax", true}};
    EXPECT_EQ(
        expectFastMatchesReference(softmaxOf({3, 3001}, 2U), {{{"x", scores({3, 3001}, 1)}}}, reductionTolerance(3001)),
        fast);
    EXPECT_EQ(
        expectFastMatchesReference(softmaxOf({17}, 1U), {{{"x", scores({17}, 2)}}}, reductionTolerance(17)), fast);
}

TEST(FastSoftMax, MaskedEntriesGetNothing)
{
    // An attention mask sets scores to -inf (or a large negative number) where a position must not be attended.
    std::vector<float> values = scores({4, 9}, 3).floats();
    for (size_t i = 0; i < values.size(); i += 4)
    {
        values[i] = i % 8 == 0 ? -std::numeric_limits<float>::infinity() : -10000.0F;
    }
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        softmaxOf({4, 9}, 2U), {{{"x", fromFloats({4, 9}, values)}}}, reductionTolerance(9));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"softmax", true}}));
}

TEST(FastSoftMax, AlongAnInnerAxisNanAndInfinityFillTheirRows)
{
    // A detector's distribution over 16 bins ([N, 4, 16, anchors] along axis 2) runs in Kiln's own loops along the
    // anchors. A NaN, a +inf and a -inf in three of its rows: NaN through the first two rows, as the reference gives.
    Shape const shape{1, 4, 16, 50};
    std::vector<float> values = scores(shape, 4).floats();
    values[3 * 50 + 7] = std::numeric_limits<float>::quiet_NaN();         // row (0, 0, *, 7)
    values[(16 + 5) * 50 + 11] = std::numeric_limits<float>::infinity();  // row (0, 1, *, 11)
    values[(32 + 9) * 50 + 13] = -std::numeric_limits<float>::infinity(); // row (0, 2, *, 13): 0 there
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        softmaxOf(shape, 4U), {{{"x", fromFloats(shape, values)}}}, reductionTolerance(16));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"softmax", true}}));
}

TEST(FastSoftMax, HalfPrecisionRunsOnTheReference)
{
    auto computeInHalf = [](IBuilder& /*builder*/, IBuilderConfig& config) { config.setFlag(BuilderFlag::kFP16); };
    EXPECT_EQ(expectFastMatchesReference(softmaxOf({3, 5}, 2U), {{{"x", scores({3, 5}, 4)}}}, 0.0, computeInHalf),
        (std::map<std::string, bool>{{"softmax", false}}));
}

TEST(FastSoftMaxShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("x", OptProfileSelector::kMIN, Dims3{1, 1, 1});
        shapes->setDimensions("x", OptProfileSelector::kOPT, Dims3{2, 8, 8});
        shapes->setDimensions("x", OptProfileSelector::kMAX, Dims3{4, 64, 64});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{{{"x", scores({2, 8, 8}, 1)}}, {{"x", scores({4, 64, 33}, 2)}},
        {{"x", scores({1, 1, 1}, 3)}}, {{"x", scores({2, 8, 8}, 4)}}};
    EXPECT_EQ(expectFastMatchesReference(softmaxOf({-1, -1, -1}, 4U), runs, reductionTolerance(64), profile),
        (std::map<std::string, bool>{{"softmax", true}}));
}

TEST(FastSoftMaxThreads, EveryThreadCountGivesTheSameBits)
{
    for (uint32_t axes : {8U, 2U})
    {
        Shape const shape{4, 12, 64, 64};
        std::vector<uint8_t> const plan = buildCpuPlan(softmaxOf(shape, axes), CpuKernels::kFAST);
        std::vector<Tensors> const runs{{{"x", scores(shape, 5)}}};
        std::vector<Tensors> const one = runCpuPlan(plan, runs, 1);
        for (int32_t threads : {2, 3, 0})
        {
            std::vector<Tensors> const more = runCpuPlan(plan, runs, threads);
            ASSERT_EQ(more.size(), 1U);
            EXPECT_EQ(more[0].at("output").bytes, one.at(0).at("output").bytes) << axes << ", " << threads;
        }
    }
}

} // namespace
} // namespace kiln::test
