// The fast path's activations and unary operations (oneDNN's eltwise) against the reference kernels: the functions
// oneDNN has run on it, the others stay on the reference; special values; thread counts.
#include "one_layer.h"

#include <cmath>
#include <limits>

namespace kiln::test
{
namespace
{

LayerMaker activation(ActivationType type, float alpha, float beta)
{
    return [=](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        IActivationLayer* layer = network.addActivation(*inputs[0], type);
        layer->setAlpha(alpha);
        layer->setBeta(beta);
        return layer;
    };
}

LayerMaker unary(UnaryOperation operation)
{
    return [=](INetworkDefinition& network, std::vector<ITensor*> const& inputs) {
        return network.addUnary(*inputs[0], operation);
    };
}

Shape const kShape{2, 3, 7, 5};

//! Values in [-8, 8), where the functions bend, then infinities, NaN, zeros of both signs, subnormals, halves.
Tensors valuesWithSpecials(Shape const& shape, uint32_t seed)
{
    float const inf = std::numeric_limits<float>::infinity();
    std::vector<float> values = randomInputs({shape}, seed, 8.0F).at("a").floats();
    std::vector<float> const specials{inf, -inf, std::nanf(""), 0.0F, -0.0F, 1e-40F, -1e-40F, 2.5F, -2.5F, 0.5F};
    std::copy(specials.begin(), specials.end(), values.begin());
    return {{"a", fromFloats(shape, values)}};
}

struct ActivationCase
{
    char const* name;
    ActivationType type;
    float alpha;
    float beta;
};

class FastActivation : public testing::TestWithParam<ActivationCase>
{
};

// oneDNN's transcendental functions are within a few ulps (a few 1e-7 where they cancel near 0); ReLU and clip
// differ from the reference for NaN (0), the one special value left out here.
TEST_P(FastActivation, MatchesTheReferenceKernel)
{
    ActivationCase const& c = GetParam();
    expectLayerMatches(oneLayer({kShape}, activation(c.type, c.alpha, c.beta)), {randomInputs({kShape}, 1, 8.0F)},
        Tolerance(1e-6, 1e-6), true);
}

INSTANTIATE_TEST_SUITE_P(Types, FastActivation,
    testing::Values(ActivationCase{"Relu", ActivationType::kRELU, 0.0F, 0.0F},
        ActivationCase{"LeakyRelu", ActivationType::kLEAKY_RELU, 0.1F, 0.0F},
        ActivationCase{"Sigmoid", ActivationType::kSIGMOID, 0.0F, 0.0F},
        ActivationCase{"Tanh", ActivationType::kTANH, 0.0F, 0.0F},
        ActivationCase{"Elu", ActivationType::kELU, 0.7F, 0.0F},
        ActivationCase{"Relu6", ActivationType::kCLIP, 0.0F, 6.0F},
        ActivationCase{"ClipAsymmetric", ActivationType::kCLIP, -1.5F, 0.5F},
        ActivationCase{"GeluErf", ActivationType::kGELU_ERF, 0.0F, 0.0F},
        ActivationCase{"GeluTanh", ActivationType::kGELU_TANH, 0.0F, 0.0F}),
    [](testing::TestParamInfo<ActivationCase> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastActivationFallback, FunctionsOneDnnLacksStayOnTheReference)
{
    for (ActivationType type : {ActivationType::kSOFTSIGN, ActivationType::kSELU, ActivationType::kHARD_SIGMOID,
             ActivationType::kSCALED_TANH, ActivationType::kTHRESHOLDED_RELU, ActivationType::kSOFTPLUS})
    {
        SCOPED_TRACE(static_cast<int32_t>(type));
        expectLayerMatches(
            oneLayer({kShape}, activation(type, 0.5F, 1.5F)), {randomInputs({kShape}, 2, 8.0F)}, Tolerance(0.0), false);
    }
}

TEST(FastUnary, ExactOperationsGiveTheReferenceValuesAlsoForSpecialValues)
{
    // The same values, NaN for NaN; only the sign of a zero may differ (oneDNN negates +0 to +0).
    for (UnaryOperation operation : {UnaryOperation::kSQRT, UnaryOperation::kABS, UnaryOperation::kNEG,
             UnaryOperation::kRECIP, UnaryOperation::kROUND})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(oneLayer({kShape}, unary(operation)), {valuesWithSpecials(kShape, 3)}, Tolerance(0.0), true);
    }
}

TEST(FastUnary, EveryRankAndSizeRuns)
{
    for (Shape const& shape : {Shape{}, Shape{1}, Shape{31}, Shape{3, 17}, Shape{2, 1, 3, 1, 5, 7}})
    {
        SCOPED_TRACE(testing::PrintToString(shape));
        expectLayerMatches(
            oneLayer({shape}, unary(UnaryOperation::kABS)), {randomInputs({shape}, 4)}, Tolerance(0.0), true);
    }
}

TEST(FastUnaryFallback, OperationsOneDnnDoesNotComputeAsTheReferenceStayOnIt)
{
    // Exp and log: oneDNN's differ for NaN, subnormal results and around log(1); the others it has not.
    for (UnaryOperation operation : {UnaryOperation::kEXP, UnaryOperation::kLOG, UnaryOperation::kSIN,
             UnaryOperation::kERF, UnaryOperation::kFLOOR, UnaryOperation::kCEIL, UnaryOperation::kSIGN})
    {
        SCOPED_TRACE(static_cast<int32_t>(operation));
        expectLayerMatches(
            oneLayer({kShape}, unary(operation)), {valuesWithSpecials(kShape, 5)}, Tolerance(0.0), false);
    }
}

TEST(FastEltwiseShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("a", OptProfileSelector::kMIN, Dims2{1, 1});
        shapes->setDimensions("a", OptProfileSelector::kOPT, Dims2{4, 8});
        shapes->setDimensions("a", OptProfileSelector::kMAX, Dims2{9, 64});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{randomInputs({{4, 8}}, 6, 8.0F), randomInputs({{9, 63}}, 7, 8.0F),
        randomInputs({{1, 1}}, 8, 8.0F), randomInputs({{4, 8}}, 9, 8.0F)};
    expectLayerMatches(oneLayer({{-1, -1}}, activation(ActivationType::kSIGMOID, 0.0F, 0.0F)), runs,
        Tolerance(1e-6, 1e-6), true, profile);
}

TEST(FastEltwiseThreads, EveryThreadCountGivesTheSameBits)
{
    Shape const shape{2, 64, 56, 57};
    expectSameBitsAtEveryThreadCount(
        oneLayer({shape}, activation(ActivationType::kGELU_ERF, 0.0F, 0.0F)), randomInputs({shape}, 10, 8.0F));
}

} // namespace
} // namespace kiln::test
