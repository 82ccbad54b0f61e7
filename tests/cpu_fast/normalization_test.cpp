// The fast path's normalization against the reference kernel: layer normalization over one or more trailing axes,
// scale and bias that broadcast, long rows (rows of 2^14 elements or more on Kiln's own loops), epsilon, data whose
// mean dwarfs its spread, the weights as the ONNX parser imports LayerNormalization's; instance and group normalization
// and axes that are not trailing fall back to the reference; dynamic shapes; thread counts.
#include "fast_path_comparison.h"

namespace kiln::test
{
namespace
{

constexpr uint32_t axis(int32_t a)
{
    return 1U << a;
}

struct NormalizationCase
{
    char const* name;
    Shape input;
    uint32_t axes;
    Shape scale;
    Shape bias;
    int64_t groups{1};
    float epsilon{1e-5F};
    float offset{0.0F}; //!< added to every input value
};

NetworkMaker normalizationOf(NormalizationCase const& c)
{
    return [c](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dimsOf(c.input));
        ITensor* scale = network.addInput("scale", DataType::kFLOAT, dimsOf(c.scale));
        ITensor* bias = network.addInput("bias", DataType::kFLOAT, dimsOf(c.bias));
        INormalizationLayer* layer = network.addNormalization(*x, *scale, *bias, c.axes);
        layer->setNbGroups(c.groups);
        layer->setEpsilon(c.epsilon);
        layer->setName("normalization");
        layer->getOutput(0)->setName("output");
        network.markOutput(*layer->getOutput(0));
    };
}

Tensors inputsOf(NormalizationCase const& c)
{
    std::vector<float> x = randomTensor(c.input, 1).floats();
    for (float& value : x)
    {
        value += c.offset;
    }
    return {{"x", fromFloats(c.input, x)}, {"scale", randomTensor(c.scale, 2)}, {"bias", randomTensor(c.bias, 3)}};
}

//! The elements each statistic is over.
int64_t normalizedElements(NormalizationCase const& c)
{
    int64_t elements = 1;
    for (size_t a = 0; a < c.input.size(); ++a)
    {
        elements *= (c.axes >> a) & 1U ? c.input[a] : 1;
    }
    return elements;
}

//! The mean and deviation are sums over the normalized elements; an offset costs the FP32 mean bits relative to it,
//! which the normalized values carry divided by the deviation (about 0.6 for values spread over [-1, 1)).
Tolerance toleranceOf(NormalizationCase const& c)
{
    if (normalizedElements(c) >= (int64_t{1} << 14))
    {
        // Kiln's loops sum in double as the reference does: a few FP32 roundings of each result, and of the mean (its
        // ulp carries the offset).
        return Tolerance(1e-5 + 1e-7 * c.offset, 1e-5);
    }
    Tolerance tolerance = reductionTolerance(normalizedElements(c));
    tolerance.absolute += 1e-6 * c.offset;
    return tolerance;
}

//! Names a failing case by its name rather than its bytes.
void PrintTo(NormalizationCase const& c, std::ostream* os)
{
    *os << c.name;
}

class FastNormalization : public testing::TestWithParam<NormalizationCase>
{
};

TEST_P(FastNormalization, LayerNormalizationMatchesTheReferenceKernel)
{
    NormalizationCase const& c = GetParam();
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(normalizationOf(c), {inputsOf(c)}, toleranceOf(c));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"normalization", true}}));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastNormalization,
    testing::Values(NormalizationCase{"LastAxis", {3, 4, 37}, axis(2), {1, 1, 37}, {1, 1, 37}},
        NormalizationCase{"LastTwoAxes", {3, 4, 37}, axis(1) | axis(2), {1, 4, 37}, {1, 4, 37}},
        NormalizationCase{"EveryAxis", {3, 5, 7}, axis(0) | axis(1) | axis(2), {1, 1, 1}, {3, 5, 7}},
        NormalizationCase{"ScaleAndBiasBroadcastDifferently", {2, 9, 11}, axis(1) | axis(2), {1, 1, 11}, {1, 9, 1}},
        NormalizationCase{"FourDimensional", {2, 3, 4, 5}, axis(2) | axis(3), {1, 1, 4, 5}, {1, 1, 1, 5}},
        NormalizationCase{"LongRows", {2, 5000}, axis(1), {1, 5000}, {1, 5000}},
        NormalizationCase{"OneElementGroups", {6, 1}, axis(1), {1, 1}, {1, 1}},
        NormalizationCase{"LargeEpsilon", {2, 3, 17}, axis(2), {1, 1, 17}, {1, 1, 17}, 1, 0.5F},
        NormalizationCase{"MeanFarFromZero", {2, 4096}, axis(1), {1, 4096}, {1, 4096}, 1, 1e-5F, 1000.0F},
        NormalizationCase{"RowsOfSeventyThousand", {2, 1, 70001}, axis(2), {1, 1, 70001}, {1, 1, 1}},
        NormalizationCase{"LongRowsOfOneScaleAndShift", {2, 1, 70001}, axis(2), {1, 1, 1}, {1, 1, 1}},
        NormalizationCase{"OneLongRowOfThreeAxes", {1, 4, 150, 171}, axis(1) | axis(2) | axis(3), {1, 4, 1, 1},
            {1, 1, 150, 171}, 1, 1e-5F, 100.0F}),
    [](testing::TestParamInfo<NormalizationCase> const& testInfo) { return std::string(testInfo.param.name); });

class FastNormalizationFallback : public testing::TestWithParam<NormalizationCase>
{
};

TEST_P(FastNormalizationFallback, RunsOnTheReference)
{
    NormalizationCase const& c = GetParam();
    EXPECT_EQ(expectFastMatchesReference(normalizationOf(c), {inputsOf(c)}, 0.0),
        (std::map<std::string, bool>{{"normalization", false}}));
}

INSTANTIATE_TEST_SUITE_P(Kinds, FastNormalizationFallback,
    testing::Values(NormalizationCase{"Instance", {2, 3, 5, 7}, axis(2) | axis(3), {1, 3, 1, 1}, {1, 3, 1, 1}},
        NormalizationCase{"Group", {2, 6, 5, 3}, axis(2) | axis(3), {1, 6, 1, 1}, {1, 6, 1, 1}, 3},
        NormalizationCase{"AxesNotTrailing", {4, 3, 5, 2}, axis(0) | axis(2), {4, 1, 5, 1}, {4, 1, 5, 1}},
        NormalizationCase{"WeightsAlongOtherAxes", {3, 4, 37}, axis(2), {3, 1, 37}, {1, 1, 37}}),
    [](testing::TestParamInfo<NormalizationCase> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastNormalizationOnnx, LayerNormalizationAsImported)
{
    // ONNX's LayerNormalization over the last axis of [2, 16, 64]: scale and bias are constants of 64 values that the
    // parser reshapes to [1, 1, 64].
    std::vector<float> const scale = randomValues(64, 4);
    std::vector<float> const bias = randomValues(64, 5);
    auto weights = [](INetworkDefinition& network, std::vector<float> const& values, char const* name) -> ITensor& {
        IConstantLayer* constant = network.addConstant(Dims{1, {64}}, weightsOf(values));
        constant->setName(name);
        IShuffleLayer* reshape = network.addShuffle(*constant->getOutput(0));
        reshape->setReshapeDimensions(Dims3{1, 1, 64});
        return *reshape->getOutput(0);
    };
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims3{2, 16, 64});
        INormalizationLayer* layer
            = network.addNormalization(*x, weights(network, scale, "scale"), weights(network, bias, "bias"), axis(2));
        layer->setName("layer norm");
        layer->getOutput(0)->setName("output");
        network.markOutput(*layer->getOutput(0));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({2, 16, 64}, 6)}}}, reductionTolerance(64));
    EXPECT_EQ(layersNamed(layers, {"layer norm"}), (std::map<std::string, bool>{{"layer norm", true}}));
}

TEST(FastNormalizationShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    NormalizationCase const dynamic{"Dynamic", {-1, -1, 24}, axis(2), {1, 1, 24}, {1, 1, 24}};
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("x", OptProfileSelector::kMIN, Dims3{1, 1, 24});
        shapes->setDimensions("x", OptProfileSelector::kOPT, Dims3{2, 8, 24});
        shapes->setDimensions("x", OptProfileSelector::kMAX, Dims3{4, 128, 24});
        config.addOptimizationProfile(shapes);
    };
    auto run = [](Shape const& shape, uint32_t seed) {
        return Tensors{{"x", randomTensor(shape, seed)}, {"scale", randomTensor({1, 1, 24}, seed + 1)},
            {"bias", randomTensor({1, 1, 24}, seed + 2)}};
    };
    std::vector<Tensors> const runs{run({2, 8, 24}, 1), run({4, 128, 24}, 4), run({1, 1, 24}, 7), run({2, 8, 24}, 1)};
    EXPECT_EQ(expectFastMatchesReference(normalizationOf(dynamic), runs, reductionTolerance(24), profile),
        (std::map<std::string, bool>{{"normalization", true}}));
}

TEST(FastNormalizationThreads, EveryThreadCountGivesTheSameBits)
{
    // Many rows on oneDNN, and two long rows on Kiln's loops (their sums taken chunk by chunk, added in order).
    for (NormalizationCase const& c : {NormalizationCase{"Wide", {8, 128, 768}, axis(2), {1, 1, 768}, {1, 1, 768}},
             NormalizationCase{"Long", {2, 100003}, axis(1), {1, 100003}, {1, 100003}}})
    {
        std::vector<uint8_t> const plan = buildCpuPlan(normalizationOf(c), CpuKernels::kFAST);
        std::vector<Tensors> const runs{inputsOf(c)};
        std::vector<Tensors> const one = runCpuPlan(plan, runs, 1);
        for (int32_t threads : {2, 3, 0})
        {
            std::vector<Tensors> const more = runCpuPlan(plan, runs, threads);
            ASSERT_EQ(more.size(), 1U);
            EXPECT_EQ(more[0].at("output").bytes, one.at(0).at("output").bytes) << c.name << ", " << threads;
        }
    }
}

} // namespace
} // namespace kiln::test
