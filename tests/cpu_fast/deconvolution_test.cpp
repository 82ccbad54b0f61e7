// The fast path's deconvolution against the reference kernel: upsampling strides, groups, dilation, padding modes,
// 1-D to 3-D; ONNX's output_padding (a negative post-padding) stays on the reference.
#include "layer_helpers.h"

namespace kiln::test
{
namespace
{

struct DeconvolutionCase
{
    char const* name;
    Shape input;
    int64_t maps;
    Shape kernel;
    Shape stride;
    Shape prePadding;
    Shape postPadding;
    Shape dilation;
    int64_t groups;
    PaddingMode mode;
    bool fast; //!< whether the fast path takes it
};

class FastDeconvolution : public testing::TestWithParam<DeconvolutionCase>
{
};

TEST_P(FastDeconvolution, MatchesTheReferenceKernel)
{
    DeconvolutionCase const& c = GetParam();
    // Weights [C, K / groups, k...], and a bias per output map.
    std::vector<float> const kernel
        = randomValues(static_cast<size_t>(c.input[1] * (c.maps / c.groups) * volume(c.kernel)), 31);
    std::vector<float> const bias = randomValues(static_cast<size_t>(c.maps), 32);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = network.addInput("input", DataType::kFLOAT, dimsOf(c.input));
        IDeconvolutionLayer* layer
            = network.addDeconvolutionNd(*input, c.maps, dimsOf(c.kernel), weightsOf(kernel), weightsOf(bias));
        layer->setName("deconvolution");
        setWindow(*layer, c.stride, c.prePadding, c.postPadding, c.dilation, c.groups, c.mode);
        markOutput(network, *layer->getOutput(0));
    };
    // An output element sums at most C / groups channels times the taps that reach it.
    int64_t const reduction = c.input[1] / c.groups * volume(c.kernel) + 1;
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"input", randomTensor(c.input, 33)}}}, reductionTolerance(reduction));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"deconvolution", c.fast}}));
}

constexpr auto kExplicit = PaddingMode::kEXPLICIT_ROUND_DOWN;

INSTANTIATE_TEST_SUITE_P(Shapes, FastDeconvolution,
    testing::Values(
        DeconvolutionCase{"Upsample2x", {1, 8, 7, 9}, 4, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {}, 1, kExplicit, true},
        DeconvolutionCase{"OddStrides", {2, 3, 5, 6}, 5, {3, 2}, {3, 2}, {0, 1}, {2, 0}, {}, 1, kExplicit, true},
        DeconvolutionCase{"Grouped", {1, 6, 5, 5}, 9, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, 3, kExplicit, true},
        DeconvolutionCase{"Dilated", {1, 2, 6, 6}, 3, {3, 3}, {2, 2}, {}, {}, {2, 2}, 1, kExplicit, true},
        DeconvolutionCase{"SameUpper", {1, 4, 5, 7}, 2, {3, 3}, {2, 2}, {}, {}, {}, 1, PaddingMode::kSAME_UPPER, true},
        DeconvolutionCase{"OneDimensional", {2, 3, 10}, 4, {5}, {3}, {2}, {1}, {}, 1, kExplicit, true},
        DeconvolutionCase{"ThreeDimensional", {1, 2, 3, 4, 5}, 3, {2, 2, 2}, {2, 2, 2}, {}, {}, {}, 1, kExplicit, true},
        DeconvolutionCase{"OutputPaddingStaysOnTheReference", {1, 2, 4, 4}, 3, {3, 3}, {2, 2}, {1, 1}, {-1, -1}, {}, 1,
            kExplicit, false}),
    [](testing::TestParamInfo<DeconvolutionCase> const& testInfo) { return std::string(testInfo.param.name); });

} // namespace
} // namespace kiln::test
