// The fast path's pooling against the reference kernel: max and average (padding counted or not), 1-D to 3-D, the
// shapes of the layer tests, odd sizes, every padding mode; the windows oneDNN averages or pools differently stay
// on the reference (statically) or run the reference kernel at those shapes (dynamically); thread counts.
#include "one_layer.h"

namespace kiln::test
{
namespace
{

struct PoolingCase
{
    char const* name;
    Shape input;
    Shape window;
    Shape stride;
    Shape prePadding;
    Shape postPadding;
    PaddingMode mode;
};

//! A pooling layer of `type` as `c` describes it.
LayerMaker pooling(PoolingCase const& c, PoolingType type, bool excludesPadding)
{
    return [c, type, excludesPadding](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        IPoolingLayer* layer = network.addPoolingNd(*inputs[0], type, dimsOf(c.window));
        layer->setStrideNd(dimsOf(c.stride));
        layer->setPrePadding(dimsOf(c.prePadding));
        layer->setPostPadding(dimsOf(c.postPadding));
        layer->setPaddingMode(c.mode);
        layer->setAverageCountExcludesPadding(excludesPadding);
        return layer;
    };
}

//! Max pooling is exact; an average of n values (summed in FP32 against the reference's double) within an ulp or so
//! per term.
Tolerance toleranceOf(PoolingCase const& c, PoolingType type)
{
    return type == PoolingType::kMAX ? Tolerance(0.0) : reductionTolerance(volume(c.window));
}

constexpr auto kDown = PaddingMode::kEXPLICIT_ROUND_DOWN;
constexpr auto kUp = PaddingMode::kEXPLICIT_ROUND_UP;

//! Cases that oneDNN computes as the reference does for every pooling type and padding count.
class FastPooling : public testing::TestWithParam<PoolingCase>
{
};

TEST_P(FastPooling, MatchesTheReferenceKernel)
{
    PoolingCase const& c = GetParam();
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE})
    {
        for (bool excludesPadding : {true, false})
        {
            SCOPED_TRACE(std::string(type == PoolingType::kMAX ? "max" : "average")
                + (excludesPadding ? ", padding not counted" : ", padding counted"));
            expectLayerMatches(oneLayer({c.input}, pooling(c, type, excludesPadding)), {randomInputs({c.input}, 3)},
                toleranceOf(c, type), true);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastPooling,
    testing::Values(PoolingCase{"Window3Stride2Pad1", {2, 3, 9, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, kDown},
        PoolingCase{"ResNetStem", {1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, kDown},
        PoolingCase{"OddSizesAsymmetricPadding", {1, 5, 13, 11}, {3, 2}, {2, 3}, {2, 0}, {0, 1}, kDown},
        PoolingCase{"RoundDownLeavesInputOut", {1, 2, 10, 7}, {2, 2}, {3, 3}, {0, 0}, {0, 0}, kDown},
        // Rounding up where it divides evenly: every window lies inside the padded input.
        PoolingCase{"RoundUpEvenly", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, kUp},
        PoolingCase{"SameUpper", {1, 2, 7, 6}, {4, 3}, {2, 1}, {0, 0}, {0, 0}, PaddingMode::kSAME_UPPER},
        PoolingCase{"SameLower", {1, 2, 7, 6}, {4, 3}, {3, 2}, {0, 0}, {0, 0}, PaddingMode::kSAME_LOWER},
        PoolingCase{
            "SameUpperStrideBeyondWindow", {1, 2, 11, 8}, {2, 1}, {3, 3}, {0, 0}, {0, 0}, PaddingMode::kSAME_UPPER},
        PoolingCase{"Global", {2, 3, 5, 7}, {5, 7}, {1, 1}, {0, 0}, {0, 0}, kDown},
        PoolingCase{"OneDimensional", {2, 4, 17}, {3}, {2}, {1}, {1}, kDown},
        PoolingCase{"ThreeDimensional", {1, 2, 4, 6, 5}, {2, 3, 2}, {1, 2, 2}, {1, 0, 1}, {0, 1, 1}, kDown},
        PoolingCase{"ChannelsOnly", {3, 8, 9}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, kDown},
        PoolingCase{"ManyLeadingAxes", {2, 2, 3, 6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, kDown}),
    [](testing::TestParamInfo<PoolingCase> const& testInfo) { return std::string(testInfo.param.name); });

PoolingCase const kRoundUpPastPadding{"RoundUpPastPadding", {1, 2, 7, 8}, {2, 3}, {2, 2}, {0, 1}, {0, 0}, kUp};

TEST(FastPoolingFallback, AnAverageCountingPaddingPastThePostPaddingStaysOnTheReference)
{
    // The last row of windows reaches one past the input and its post-padding of 0: the reference divides by the
    // 3 elements inside, oneDNN would by the window's 6.
    PoolingCase const& c = kRoundUpPastPadding;
    expectLayerMatches(oneLayer({c.input}, pooling(c, PoolingType::kAVERAGE, false)), {randomInputs({c.input}, 4)},
        toleranceOf(c, PoolingType::kAVERAGE), false);
    // Not counting padding, or taking the maximum, oneDNN computes the same.
    expectLayerMatches(oneLayer({c.input}, pooling(c, PoolingType::kAVERAGE, true)), {randomInputs({c.input}, 4)},
        toleranceOf(c, PoolingType::kAVERAGE), true);
    expectLayerMatches(oneLayer({c.input}, pooling(c, PoolingType::kMAX, false)), {randomInputs({c.input}, 4)},
        toleranceOf(c, PoolingType::kMAX), true);
}

TEST(FastPoolingFallback, WindowsOverPaddingAloneStayOnTheReference)
{
    // The reference gives such a window 0; oneDNN the lowest float (max) or 0 / 0 (average).
    PoolingCase const post{"PostPaddingAsLargeAsTheWindow", {1, 2, 4, 4}, {2, 2}, {2, 2}, {0, 0}, {2, 0}, kDown};
    PoolingCase const pre{"PrePaddingAsLargeAsTheWindow", {1, 2, 6}, {2}, {1}, {2}, {0}, kDown};
    for (PoolingCase const& c : {post, pre})
    {
        SCOPED_TRACE(c.name);
        for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE})
        {
            expectLayerMatches(
                oneLayer({c.input}, pooling(c, type, true)), {randomInputs({c.input}, 5)}, toleranceOf(c, type), false);
        }
    }
}

TEST(FastPoolingFallback, MaxAverageBlendStaysOnTheReference)
{
    PoolingCase const c{"Blend", {1, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, kDown};
    auto blend = [&](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        ILayer* layer = pooling(c, PoolingType::kMAX_AVERAGE_BLEND, true)(network, inputs);
        static_cast<IPoolingLayer*>(layer)->setBlendFactor(0.25F);
        return layer;
    };
    expectLayerMatches(oneLayer({c.input}, blend), {randomInputs({c.input}, 6)}, reductionTolerance(4), false);
}

TEST(FastPoolingShapes, ADynamicInputRunsTheReferenceKernelAtTheShapesOneDnnAveragesDifferently)
{
    // Odd heights divide evenly; at even ones the last windows reach past the post-padding, and the kernel runs the
    // reference kernel.
    PoolingCase const c{"Dynamic", {-1, 3, -1, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, kUp};
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("a", OptProfileSelector::kMIN, Dims4{1, 3, 4, 9});
        shapes->setDimensions("a", OptProfileSelector::kOPT, Dims4{2, 3, 7, 9});
        shapes->setDimensions("a", OptProfileSelector::kMAX, Dims4{3, 3, 12, 9});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{randomInputs({{2, 3, 7, 9}}, 1), randomInputs({{1, 3, 6, 9}}, 2),
        randomInputs({{3, 3, 9, 9}}, 3), randomInputs({{2, 3, 8, 9}}, 4), randomInputs({{2, 3, 7, 9}}, 5)};
    expectLayerMatches(oneLayer({c.input}, pooling(c, PoolingType::kAVERAGE, false)), runs,
        toleranceOf(c, PoolingType::kAVERAGE), true, profile);
}

TEST(FastPoolingThreads, EveryThreadCountGivesTheSameBits)
{
    PoolingCase const c{"Wide", {2, 32, 56, 56}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, kDown};
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE})
    {
        expectSameBitsAtEveryThreadCount(oneLayer({c.input}, pooling(c, type, false)), randomInputs({c.input}, 7));
    }
}

} // namespace
} // namespace kiln::test
