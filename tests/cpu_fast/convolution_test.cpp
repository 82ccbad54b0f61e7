// The fast path's convolution against the reference kernel: shapes of the layer tests, odd sizes, groups,
// dilations, padding modes and strides, 1-D to 3-D; the fusions the CPU build makes (batch norm folded in; residual
// and activation as post-ops); dynamic shapes; thread counts.
#include "layer_helpers.h"
#include "one_layer.h"

namespace kiln::test
{
namespace
{

struct ConvolutionCase
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
    bool bias;
};

//! A convolution as the case describes it, with weights kept alive by the case's own vectors.
class ConvolutionNetwork
{
public:
    ConvolutionNetwork(ConvolutionCase const& c, uint32_t seed)
        : mCase(c)
        , mKernel(randomValues(static_cast<size_t>(c.maps * (c.input[1] / c.groups) * volume(c.kernel)), seed))
        , mBias(c.bias ? randomValues(static_cast<size_t>(c.maps), seed + 1) : std::vector<float>{})
    {
    }

    //! The convolution's layer, reading `input`.
    IConvolutionLayer* add(INetworkDefinition& network, ITensor& input) const
    {
        IConvolutionLayer* layer
            = network.addConvolutionNd(input, mCase.maps, dimsOf(mCase.kernel), weightsOf(mKernel), weightsOf(mBias));
        layer->setName("convolution");
        setWindow(*layer, mCase.stride, mCase.prePadding, mCase.postPadding, mCase.dilation, mCase.groups, mCase.mode);
        return layer;
    }

    //! The network of the case's input through the convolution alone into "output".
    NetworkMaker alone() const
    {
        return [this](INetworkDefinition& network) {
            ITensor* input = network.addInput("input", DataType::kFLOAT, dimsOf(mCase.input));
            markOutput(network, *add(network, *input)->getOutput(0));
        };
    }

    int64_t reductionLength() const
    {
        return mCase.input[1] / mCase.groups * volume(mCase.kernel) + 1;
    }

private:
    ConvolutionCase const& mCase;
    std::vector<float> mKernel;
    std::vector<float> mBias;
};

class FastConvolution : public testing::TestWithParam<ConvolutionCase>
{
};

TEST_P(FastConvolution, MatchesTheReferenceKernel)
{
    ConvolutionCase const& c = GetParam();
    ConvolutionNetwork const convolution(c, 7);
    NetworkMaker const maker = convolution.alone();
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"input", randomTensor(c.input, 3)}}}, reductionTolerance(convolution.reductionLength()));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"convolution", true}}));
}

constexpr auto kExplicit = PaddingMode::kEXPLICIT_ROUND_DOWN;

INSTANTIATE_TEST_SUITE_P(Shapes, FastConvolution,
    testing::Values(ConvolutionCase{"Same3x3", {1, 8, 9, 11}, 16, {3, 3}, {}, {1, 1}, {1, 1}, {}, 1, kExplicit, true},
        ConvolutionCase{
            "OddStridesAndPadding", {2, 3, 13, 17}, 5, {3, 5}, {2, 3}, {1, 2}, {0, 1}, {}, 1, kExplicit, true},
        ConvolutionCase{"Dilated", {1, 4, 15, 15}, 6, {3, 3}, {}, {2, 2}, {2, 2}, {2, 2}, 1, kExplicit, true},
        ConvolutionCase{"Grouped", {1, 12, 10, 10}, 8, {3, 3}, {}, {1, 1}, {1, 1}, {}, 4, kExplicit, true},
        ConvolutionCase{"Depthwise", {2, 16, 14, 14}, 16, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, 16, kExplicit, true},
        ConvolutionCase{"PointwiseWithoutBias", {1, 32, 7, 7}, 64, {1, 1}, {}, {}, {}, {}, 1, kExplicit, false},
        ConvolutionCase{
            "SameUpperStrided", {1, 3, 10, 10}, 4, {4, 4}, {2, 2}, {}, {}, {}, 1, PaddingMode::kSAME_UPPER, true},
        ConvolutionCase{"SameLower", {1, 3, 9, 9}, 4, {2, 2}, {}, {}, {}, {}, 1, PaddingMode::kSAME_LOWER, true},
        ConvolutionCase{
            "RoundUp", {1, 2, 10, 10}, 3, {3, 3}, {2, 2}, {0, 0}, {0, 0}, {}, 1, PaddingMode::kEXPLICIT_ROUND_UP, true},
        ConvolutionCase{"OneDimensional", {2, 4, 20}, 6, {5}, {2}, {2}, {2}, {}, 1, kExplicit, true},
        ConvolutionCase{
            "ThreeDimensional", {1, 3, 6, 7, 8}, 4, {3, 3, 3}, {}, {1, 1, 1}, {1, 1, 1}, {}, 1, kExplicit, true},
        ConvolutionCase{"ResNetStem", {1, 3, 56, 56}, 64, {7, 7}, {2, 2}, {3, 3}, {3, 3}, {}, 1, kExplicit, false}),
    [](testing::TestParamInfo<ConvolutionCase> const& testInfo) { return std::string(testInfo.param.name); });

ConvolutionCase const kBlock{"Block", {2, 8, 12, 12}, 8, {3, 3}, {}, {1, 1}, {1, 1}, {}, 1, kExplicit, true};

ITensor* blockInput(INetworkDefinition& network)
{
    return network.addInput("input", DataType::kFLOAT, dimsOf(kBlock.input));
}

//! Per channel of kBlock's output: a batch normalization as ONNX imports it, (x * scale + shift).
struct BatchNorm
{
    std::vector<float> scale = randomValues(8, 21);
    std::vector<float> shift = randomValues(8, 22);

    IScaleLayer* add(INetworkDefinition& network, ITensor& input) const
    {
        IScaleLayer* layer = network.addScale(input, ScaleMode::kCHANNEL, weightsOf(shift), weightsOf(scale), {});
        layer->setName("batch norm");
        return layer;
    }
};

TEST(FastConvolutionFusion, BatchNormAndReluFoldIntoOneLayer)
{
    ConvolutionNetwork const convolution(kBlock, 11);
    BatchNorm const norm;
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = blockInput(network);
        ILayer* normalized = norm.add(network, *convolution.add(network, *input)->getOutput(0));
        markOutput(network, activated(network, *normalized->getOutput(0), ActivationType::kRELU, "relu"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"input", randomTensor(kBlock.input, 5)}}}, reductionTolerance(convolution.reductionLength()));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"convolution + batch norm + relu", true}}));
}

TEST(FastConvolutionFusion, ResidualBlockBecomesOneLayer)
{
    ConvolutionNetwork const convolution(kBlock, 12);
    BatchNorm const norm;
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = blockInput(network);
        ILayer* normalized = norm.add(network, *convolution.add(network, *input)->getOutput(0));
        ITensor& sum = sumOf(network, *normalized->getOutput(0), *input, "shortcut");
        markOutput(network, activated(network, sum, ActivationType::kRELU, "relu"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"input", randomTensor(kBlock.input, 6)}}}, reductionTolerance(convolution.reductionLength()));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"convolution + batch norm + shortcut + relu", true}}));
}

TEST(FastConvolutionFusion, AFrozenBatchNormOfElementWiseLayersFoldsIn)
{
    // transformers' ResNet (DETR's backbone) exports each frozen batch norm as x * scale + shift by [1, C, 1, 1]
    // constants: both fold into the convolution, which then takes the shortcut and the ReLU. The product alone
    // folds too, the constant first or second; a product by a constant that varies along another axis does not.
    ConvolutionNetwork const convolution(kBlock, 13);
    BatchNorm const norm;
    std::vector<float> const rowFactors = randomValues(12, 23);
    auto const frozen = [&](bool withShift, bool constantFirst) {
        return [&, withShift, constantFirst](INetworkDefinition& network) {
            ITensor* input = blockInput(network);
            ITensor* x = convolution.add(network, *input)->getOutput(0);
            ITensor& scale = constantOf(network, {1, 8, 1, 1}, norm.scale, "scale");
            IElementWiseLayer* product = constantFirst ? network.addElementWise(scale, *x, ElementWiseOperation::kPROD)
                                                       : network.addElementWise(*x, scale, ElementWiseOperation::kPROD);
            product->setName("times scale");
            ITensor* y = product->getOutput(0);
            if (withShift)
            {
                y = &sumOf(network, *y, constantOf(network, {1, 8, 1, 1}, norm.shift, "shift"), "plus shift");
            }
            ITensor& sum = sumOf(network, *y, *input, "shortcut");
            markOutput(network, activated(network, sum, ActivationType::kRELU, "relu"));
        };
    };
    Tolerance const tolerance = reductionTolerance(convolution.reductionLength());
    std::map<std::string, bool> layers
        = expectFastMatchesReference(frozen(true, false), {{{"input", randomTensor(kBlock.input, 7)}}}, tolerance);
    EXPECT_EQ(
        layers, (std::map<std::string, bool>{{"convolution + times scale + plus shift + shortcut + relu", true}}));
    layers = expectFastMatchesReference(frozen(false, true), {{{"input", randomTensor(kBlock.input, 8)}}}, tolerance);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"convolution + times scale + shortcut + relu", true}}));
    auto const alongRows = [&](INetworkDefinition& network) {
        ITensor* x = convolution.add(network, *blockInput(network))->getOutput(0);
        ITensor& factors = constantOf(network, {1, 1, 12, 1}, rowFactors, "row factors");
        IElementWiseLayer* product = network.addElementWise(*x, factors, ElementWiseOperation::kPROD);
        product->setName("times rows");
        markOutput(network, *product->getOutput(0));
    };
    layers = expectFastMatchesReference(alongRows, {{{"input", randomTensor(kBlock.input, 9)}}}, tolerance);
    EXPECT_EQ(layersNamed(layers, {"convolution", "times rows"}),
        (std::map<std::string, bool>{{"convolution", true}, {"times rows", true}}));
}

TEST(FastConvolutionFusion, ProjectionShortcutKeepsBothConvolutions)
{
    // Both operands of the sum are convolutions: one takes the sum and the ReLU, the other stays a layer of its own.
    ConvolutionNetwork const main(kBlock, 18);
    ConvolutionNetwork const projection(kBlock, 19);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = blockInput(network);
        ILayer* mainLayer = main.add(network, *input);
        mainLayer->setName("main");
        ILayer* projectionLayer = projection.add(network, *input);
        projectionLayer->setName("projection");
        ITensor& sum = sumOf(network, *mainLayer->getOutput(0), *projectionLayer->getOutput(0), "shortcut");
        markOutput(network, activated(network, sum, ActivationType::kRELU, "relu"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"input", randomTensor(kBlock.input, 7)}}}, reductionTolerance(2 * main.reductionLength()));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"main + shortcut + relu", true}, {"projection", true}}));
}

TEST(FastConvolutionFusion, ChannelsLastResidualIsAddedAsItIsStored)
{
    // The shortcut is a convolution's output, stored channels-last as the fused layer writes: it is copied into the
    // output as it lies, then the sum post-op adds the second convolution to it.
    ConvolutionNetwork const first(kBlock, 25);
    ConvolutionNetwork const second(kBlock, 26);
    auto maker = [&](INetworkDefinition& network) {
        ILayer* firstLayer = first.add(network, *blockInput(network));
        firstLayer->setName("first");
        ITensor& shortcut = activated(network, *firstLayer->getOutput(0), ActivationType::kRELU, "relu");
        ILayer* secondLayer = second.add(network, shortcut);
        secondLayer->setName("second");
        markOutput(network, sumOf(network, *secondLayer->getOutput(0), shortcut, "shortcut"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(maker,
        {{{"input", randomTensor(kBlock.input, 10)}}, {{"input", randomTensor(kBlock.input, 11)}}},
        reductionTolerance(2 * first.reductionLength()));
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"first + relu", true}, {"second + shortcut", true}}));
}

TEST(FastConvolutionFusion, ShortcutOfTheSameExtentsByOtherExpressionsIsFused)
{
    // An export's shape arithmetic (ResNeSt's reshapes by Shape(x)) gives a shortcut other expressions of the same
    // extents: here the reshape's channels are the input's volume over the other axes. Where the profile fixes the
    // input's shape, they are the same at every run, and the sum and the ReLU still become the epilogue.
    ConvolutionCase const dynamic{"Dynamic", {-1, 8, 12, 12}, 8, {3, 3}, {}, {1, 1}, {1, 1}, {}, 1, kExplicit, true};
    ConvolutionNetwork const convolution(dynamic, 27);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = network.addInput("input", DataType::kFLOAT, dimsOf(dynamic.input));
        ITensor& shortcut = reshaped(network, *input, {0, -1, 12, 12}, "reshape");
        ITensor& sum = sumOf(network, *convolution.add(network, *input)->getOutput(0), shortcut, "shortcut");
        markOutput(network, activated(network, sum, ActivationType::kRELU, "relu"));
    };
    auto pinned = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        for (auto selector : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
        {
            shapes->setDimensions("input", selector, Dims4{2, 8, 12, 12});
        }
        config.addOptimizationProfile(shapes);
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(maker,
        {{{"input", randomTensor({2, 8, 12, 12}, 28)}}}, reductionTolerance(convolution.reductionLength()), pinned);
    EXPECT_EQ(layersNamed(layers, {"convolution + shortcut + relu", "shortcut", "relu"}),
        (std::map<std::string, bool>{{"convolution + shortcut + relu", true}}));
}

//! Whether, in serialized plan `blob`, layer `name` writes its output in the bytes of its residual (its last input).
bool writesOverItsResidual(std::vector<uint8_t> const& blob, std::string const& name)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            plan::TensorRecord const& output = model.tensors[layer.outputs.at(0)];
            return output.arenaOffset >= 0 && output.arenaOffset == model.tensors[layer.inputs.back()].arenaOffset;
        }
    }
    ADD_FAILURE() << "the plan has no layer " << name;
    return false;
}

TEST(FastConvolutionFusion, ResidualChainWritesEachSumOverItsShortcut)
{
    // Two residual blocks of two convolutions in a row, as a ResNet stage makes them: the first block's sum, read by
    // no layer after the block, lies in the bytes of its shortcut, which the sum post-op adds where it lies; the
    // second block's sum is the network's output, in the application's buffer, and its shortcut is copied there.
    std::vector<ConvolutionNetwork> convolutions;
    for (uint32_t seed = 27; seed < 32; ++seed)
    {
        convolutions.emplace_back(kBlock, seed);
    }
    auto maker = [&](INetworkDefinition& network) {
        auto convolution = [&](size_t index, ITensor& input, char const* name) -> ITensor& {
            ILayer* layer = convolutions[index].add(network, input);
            layer->setName(name);
            return *layer->getOutput(0);
        };
        ITensor& shortcut
            = activated(network, convolution(0, *blockInput(network), "stem"), ActivationType::kRELU, "relu");
        ITensor& middle = activated(network, convolution(1, shortcut, "a1"), ActivationType::kRELU, "relu a1");
        ITensor& block = activated(network, sumOf(network, convolution(2, middle, "b1"), shortcut, "shortcut 1"),
            ActivationType::kRELU, "relu b1");
        ITensor& middle2 = activated(network, convolution(3, block, "a2"), ActivationType::kRELU, "relu a2");
        markOutput(network, sumOf(network, convolution(4, middle2, "b2"), block, "shortcut 2"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(maker,
        {{{"input", randomTensor(kBlock.input, 12)}}, {{"input", randomTensor(kBlock.input, 13)}}},
        reductionTolerance(5 * convolutions[0].reductionLength()));
    EXPECT_EQ(layers,
        (std::map<std::string, bool>{{"stem + relu", true}, {"a1 + relu a1", true}, {"b1 + shortcut 1 + relu b1", true},
            {"a2 + relu a2", true}, {"b2 + shortcut 2", true}}));
    std::vector<uint8_t> const plan = buildCpuPlan(maker, CpuKernels::kFAST);
    EXPECT_TRUE(writesOverItsResidual(plan, "b1 + shortcut 1 + relu b1"));
    EXPECT_FALSE(writesOverItsResidual(plan, "b2 + shortcut 2"));
}

//! A convolution followed by `type` (alpha, beta): fused where oneDNN has the activation, else run after it.
std::map<std::string, bool> convolutionThen(ActivationType type, float alpha, float beta)
{
    ConvolutionNetwork const convolution(kBlock, 13);
    auto maker = [&](INetworkDefinition& network) {
        IActivationLayer* activation
            = network.addActivation(*convolution.add(network, *blockInput(network))->getOutput(0), type);
        activation->setAlpha(alpha);
        activation->setBeta(beta);
        activation->setName("activation");
        markOutput(network, *activation->getOutput(0));
    };
    return expectFastMatchesReference(
        maker, {{{"input", randomTensor(kBlock.input, 8)}}}, reductionTolerance(convolution.reductionLength()));
}

TEST(FastConvolutionFusion, ActivationsOneDnnHasAreFused)
{
    std::map<std::string, bool> const fused{{"convolution + activation", true}};
    EXPECT_EQ(convolutionThen(ActivationType::kCLIP, 0.0F, 6.0F), fused) << "ReLU6";
    EXPECT_EQ(convolutionThen(ActivationType::kLEAKY_RELU, 0.1F, 0.0F), fused);
    EXPECT_EQ(convolutionThen(ActivationType::kSIGMOID, 0.0F, 0.0F), fused);
    EXPECT_EQ(convolutionThen(ActivationType::kGELU_ERF, 0.0F, 0.0F), fused);
    EXPECT_EQ(convolutionThen(ActivationType::kHARD_SIGMOID, 0.2F, 0.5F), fused) << "two post-ops";
}

//! How a test writes a self-gated activation x * f(x) after a convolution.
struct SelfGated
{
    ActivationType type;
    float alpha;
    float beta;
    bool gateFirst; //!< the product's operands as f(x) * x rather than x * f(x)
    bool residual;  //!< x is the convolution's output plus the block's input
    bool xObserved; //!< x is an output of the network too
};

//! A convolution, then x * f(x) of its output x as an ONNX export writes SiLU and hard-swish: an activation "gate"
//! and a product "product".
std::map<std::string, bool> convolutionThenSelfGated(SelfGated const& gated)
{
    ConvolutionNetwork const convolution(kBlock, 23);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* input = blockInput(network);
        ITensor* x = convolution.add(network, *input)->getOutput(0);
        if (gated.residual)
        {
            x = &sumOf(network, *x, *input, "shortcut");
        }
        IActivationLayer* gate = network.addActivation(*x, gated.type);
        gate->setAlpha(gated.alpha);
        gate->setBeta(gated.beta);
        gate->setName("gate");
        ITensor& f = *gate->getOutput(0);
        IElementWiseLayer* product
            = network.addElementWise(gated.gateFirst ? f : *x, gated.gateFirst ? *x : f, ElementWiseOperation::kPROD);
        product->setName("product");
        markOutput(network, *product->getOutput(0));
        if (gated.xObserved)
        {
            x->setName("x");
            network.markOutput(*x);
        }
    };
    // Inputs of [-4, 4): the convolution's values reach the sigmoid's tails and beyond hard-swish's kinks at -3 and 3.
    HostTensor input = randomTensor(kBlock.input, 24);
    std::vector<float> values = input.floats();
    std::transform(values.begin(), values.end(), values.begin(), [](float v) { return 4.0F * v; });
    return expectFastMatchesReference(
        maker, {{{"input", fromFloats(kBlock.input, values)}}}, reductionTolerance(4 * convolution.reductionLength()));
}

TEST(FastConvolutionFusion, SiluAndHardSwishBecomeTheConvolutionsEpilogue)
{
    constexpr float kSixth = 1.0F / 6.0F;
    std::map<std::string, bool> const fused{{"convolution + gate + product", true}};
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kSIGMOID, 0.0F, 0.0F, false, false, false}), fused) << "SiLU";
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kSIGMOID, 0.0F, 0.0F, true, false, false}), fused)
        << "SiLU, gate first";
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kHARD_SIGMOID, kSixth, 0.5F, true, false, false}), fused)
        << "hard-swish";
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kSIGMOID, 0.0F, 0.0F, false, true, false}),
        (std::map<std::string, bool>{{"convolution + shortcut + gate + product", true}}))
        << "SiLU of a residual sum";
}

TEST(FastConvolutionFusion, SelfGatedActivationsOneDnnLacksRunAfterTheConvolution)
{
    // oneDNN 2.6's hardswish has ONNX's 1/6 and 1/2 only; the chain then runs as one point-wise layer.
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kHARD_SIGMOID, 0.2F, 0.5F, false, false, false}),
        (std::map<std::string, bool>{{"convolution", true}, {"gate + product", true}}));
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kTANH, 0.0F, 0.0F, false, false, false}),
        (std::map<std::string, bool>{{"convolution", true}, {"gate + product", true}}));
    // The network reads x itself: the convolution must write it.
    EXPECT_EQ(convolutionThenSelfGated({ActivationType::kSIGMOID, 0.0F, 0.0F, false, false, true}),
        (std::map<std::string, bool>{{"convolution", true}, {"gate + product", true}}));
}

TEST(FastConvolutionFusion, OtherActivationsRunAfterTheConvolution)
{
    EXPECT_EQ(convolutionThen(ActivationType::kSOFTSIGN, 0.0F, 0.0F),
        (std::map<std::string, bool>{{"convolution", true}, {"activation", false}}));
}

TEST(FastConvolutionPlan, ReferencePlansKeepTheNetworkAsWritten)
{
    ConvolutionNetwork const convolution(kBlock, 14);
    BatchNorm const norm;
    auto maker = [&](INetworkDefinition& network) {
        ILayer* normalized = norm.add(network, *convolution.add(network, *blockInput(network))->getOutput(0));
        markOutput(network, *normalized->getOutput(0));
    };
    EXPECT_EQ(fastPathLayers(buildCpuPlan(maker, CpuKernels::kREFERENCE)),
        (std::map<std::string, bool>{{"convolution", false}, {"batch norm", false}}));
}

TEST(FastConvolutionShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    ConvolutionCase const dynamic{
        "Dynamic", {-1, 4, -1, -1}, 6, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {}, 1, kExplicit, true};
    ConvolutionNetwork const convolution(dynamic, 15);
    NetworkMaker const maker = convolution.alone();
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("input", OptProfileSelector::kMIN, Dims4{1, 4, 5, 5});
        shapes->setDimensions("input", OptProfileSelector::kOPT, Dims4{2, 4, 16, 16});
        shapes->setDimensions("input", OptProfileSelector::kMAX, Dims4{3, 4, 33, 33});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{{{"input", randomTensor({2, 4, 16, 16}, 1)}},
        {{"input", randomTensor({3, 4, 33, 21}, 2)}}, {{"input", randomTensor({1, 4, 5, 5}, 3)}},
        {{"input", randomTensor({2, 4, 16, 16}, 4)}}};
    expectFastMatchesReference(maker, runs, reductionTolerance(convolution.reductionLength()), profile);
}

TEST(FastConvolutionThreads, EveryThreadCountGivesTheSameBits)
{
    ConvolutionCase const wide{"Wide", {2, 64, 28, 28}, 64, {3, 3}, {}, {1, 1}, {1, 1}, {}, 1, kExplicit, true};
    ConvolutionNetwork const convolution(wide, 16);
    expectSameBitsAtEveryThreadCount(convolution.alone(), {{"input", randomTensor(wide.input, 9)}}, "convolution");
}

TEST(CpuThreads, AreSetPerContextAndChecked)
{
    ConvolutionNetwork const convolution(kBlock, 17);
    NetworkMaker const maker = convolution.alone();
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kFAST);
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    EXPECT_EQ(getCpuThreads(*context), cpu::fast::availableCores());
    EXPECT_TRUE(setCpuThreads(*context, 3));
    EXPECT_EQ(getCpuThreads(*context), 3);
    EXPECT_FALSE(setCpuThreads(*context, -1));
    EXPECT_NE(logger.errors().find("-1 threads"), std::string::npos) << logger.errors();
    EXPECT_EQ(getCpuThreads(*context), 3);
}

} // namespace
} // namespace kiln::test
