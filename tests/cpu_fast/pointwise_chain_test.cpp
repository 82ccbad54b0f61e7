// Element-wise chains fused on the CPU fast path (plan/passes/pointwise_fusion.h): which layers the pass groups
// (a pure function of the plan's graph, checked on the reference plan, which keeps every layer), the fused kernel
// against the reference kernels running the layers one by one (odd sizes, broadcast operands, blocks split over
// threads), chains that must not fuse, and the fused layer as the inspector shows it.
#include "fast_path_comparison.h"
#include "layer_helpers.h"
#include "named_layers.h"

#include "backend/cpu/fast/vector_functions.h"
#include "plan/passes/pointwise_fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::test
{
namespace
{

ITensor& activation(
    INetworkDefinition& network, ITensor& x, ActivationType type, float alpha, float beta, char const* name)
{
    IActivationLayer* layer = network.addActivation(x, type);
    layer->setAlpha(alpha);
    layer->setBeta(beta);
    layer->setName(name);
    return *layer->getOutput(0);
}

ITensor& meanOfLastAxis(INetworkDefinition& network, ITensor& x, int32_t rank, char const* name)
{
    IReduceLayer* layer = network.addReduce(x, ReduceOperation::kAVG, 1U << (rank - 1), true);
    layer->setName(name);
    return *layer->getOutput(0);
}

//! LayerNorm as ONNX exports it before opset 17, over the last axis of x [2, 5, 33]: (x - mean) / sqrt(var + eps)
//! * gamma + beta.
struct LayerNormTail
{
    std::vector<float> two{2.0F};
    std::vector<float> epsilon{1e-5F};
    std::vector<float> gamma = randomValues(33, 11);
    std::vector<float> beta = randomValues(33, 12);

    void operator()(INetworkDefinition& network) const
    {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims3{2, 5, 33});
        ITensor& centred = binary(network, x, meanOfLastAxis(network, x, 3, "mean"), ElementWiseOperation::kSUB, "sub");
        ITensor& squared
            = binary(network, centred, constantOf(network, {1, 1, 1}, two, "two"), ElementWiseOperation::kPOW, "pow");
        ITensor& variance = meanOfLastAxis(network, squared, 3, "variance");
        ITensor& shifted = binary(
            network, variance, constantOf(network, {1, 1, 1}, epsilon, "eps"), ElementWiseOperation::kSUM, "add eps");
        ITensor& deviation = unary(network, shifted, UnaryOperation::kSQRT, "sqrt");
        ITensor& normal = binary(network, centred, deviation, ElementWiseOperation::kDIV, "div");
        ITensor& scaled = binary(
            network, normal, constantOf(network, {1, 1, 33}, gamma, "gamma"), ElementWiseOperation::kPROD, "mul gamma");
        markOutput(network,
            binary(network, scaled, constantOf(network, {1, 1, 33}, beta, "beta"), ElementWiseOperation::kSUM,
                "add beta"));
    }
};

//! The chains the pass finds in the reference plan of `maker`'s network (every layer as written), each as its layers'
//! names joined with " + " and the names of the tensors it reads from outside.
std::vector<std::pair<std::string, std::vector<std::string>>> chainsOf(
    NetworkMaker const& maker, BuildSettings const& settings = {})
{
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kREFERENCE, settings);
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    std::vector<std::pair<std::string, std::vector<std::string>>> found;
    for (plan::PointwiseChain const& chain :
        plan::findPointwiseChains(model, plan::PointwiseFusionRules{cpu::fast::joinsPointwiseChain}))
    {
        std::string name;
        for (size_t l : chain.layers)
        {
            name += (name.empty() ? "" : " + ") + model.layers[l].name;
        }
        std::vector<std::string> inputs;
        for (int32_t t : chain.inputs)
        {
            inputs.push_back(model.tensors[t].name);
        }
        found.emplace_back(name, inputs);
    }
    return found;
}

//! The tensor names the network gives its layers' outputs: the layer's own name, for chainsOf's inputs.
void nameOutputs(INetworkDefinition& network)
{
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        ILayer* layer = network.getLayer(l);
        if (layer->getOutput(0)->isNetworkOutput())
        {
            continue;
        }
        layer->getOutput(0)->setName(layer->getName());
    }
}

TEST(PointwiseChains, LayerNormsTailIsTwoChains)
{
    LayerNormTail const layerNorm;
    auto maker = [&](INetworkDefinition& network) {
        layerNorm(network);
        nameOutputs(network);
    };
    // x - mean is read by pow and by div, outside each other's chains: it stays, and so does pow (read by a reduce).
    // The deviation [2, 5, 1] has another shape than the normalised x [2, 5, 33]: a chain of its own, which the
    // division reads broadcast.
    auto const chains = chainsOf(maker);
    ASSERT_EQ(chains.size(), 2U);
    EXPECT_EQ(chains[0].first, "add eps + sqrt");
    EXPECT_EQ(chains[0].second, (std::vector<std::string>{"variance", "eps"}));
    EXPECT_EQ(chains[1].first, "div + mul gamma + add beta");
    EXPECT_EQ(chains[1].second, (std::vector<std::string>{"sub", "sqrt", "gamma", "beta"}));
}

TEST(PointwiseChains, LayerNormsTailMatchesTheReference)
{
    LayerNormTail const layerNorm;
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(layerNorm, {{{"x", randomTensor({2, 5, 33}, 13)}}}, Tolerance(1e-6, 1e-5));
    // pow squares by a constant 2: the fast path's product x * x.
    EXPECT_EQ(layersNamed(layers, {"sub", "pow", "add eps + sqrt", "div + mul gamma + add beta"}),
        (std::map<std::string, bool>{
            {"sub", true}, {"pow", true}, {"add eps + sqrt", true}, {"div + mul gamma + add beta", true}}));
}

TEST(PointwiseChains, SiluAndHardSwishAreOneLayerEach)
{
    std::vector<float> const three{3.0F};
    std::vector<float> const six{6.0F};
    auto maker = [&](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims3{3, 7, 19});
        ITensor& silu = binary(network, x, activation(network, x, ActivationType::kSIGMOID, 0.0F, 0.0F, "sigmoid"),
            ElementWiseOperation::kPROD, "silu");
        ITensor& threes = constantOf(network, {1, 1, 1}, three, "three");
        ITensor& shifted = binary(network, silu, threes, ElementWiseOperation::kSUM, "add 3");
        ITensor& clipped = activation(network, shifted, ActivationType::kCLIP, 0.0F, 6.0F, "clip");
        ITensor& product = binary(network, silu, clipped, ElementWiseOperation::kPROD, "mul");
        markOutput(network,
            binary(network, product, constantOf(network, {1, 1, 1}, six, "six"), ElementWiseOperation::kDIV, "div 6"));
    };
    // The sigmoid is the fast path's FP32 one (vector_functions.h), the rest IEEE arithmetic as the reference's.
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"x", randomTensor({3, 7, 19}, 21)}}}, Tolerance(1e-6, 4 * cpu::fast::kVectorRelativeError));
    // SiLU's output is read twice, both inside the chain: everything from x on is one pass.
    EXPECT_EQ(layersNamed(layers, {"sigmoid + silu + add 3 + clip + mul + div 6"}),
        (std::map<std::string, bool>{{"sigmoid + silu + add 3 + clip + mul + div 6", true}}));
}

TEST(PointwiseChains, SiluAndHardSwishKeepSpecialValuesAsTheReferenceDoes)
{
    // ONNX's SiLU (x * sigmoid(x)) and HardSwish (x * hard_sigmoid(x), alpha 1/6, beta 1/2) over values in
    // [-120, 120), 700 elements (three blocks), the first ones infinities, NaN, zeros and subnormals.
    Shape const shape{2, 7, 50};
    auto maker = [](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims3{2, 7, 50});
        ITensor& gate = activation(network, x, ActivationType::kSIGMOID, 0.0F, 0.0F, "sigmoid");
        markOutput(network, binary(network, x, gate, ElementWiseOperation::kPROD, "silu"));
        ITensor& hardGate = activation(network, x, ActivationType::kHARD_SIGMOID, 1.0F / 6.0F, 0.5F, "hard sigmoid");
        ITensor& hardSwish = binary(network, x, hardGate, ElementWiseOperation::kPROD, "hard swish");
        hardSwish.setName("hard swish out");
        network.markOutput(hardSwish);
    };
    std::vector<float> values = randomTensor(shape, 81).floats();
    for (float& v : values)
    {
        v *= 120.0F;
    }
    float const inf = std::numeric_limits<float>::infinity();
    std::vector<float> const specials{inf, -inf, std::nanf(""), 0.0F, -0.0F, 1e-40F, -1e-40F, -90.0F, -105.0F, 89.0F};
    std::copy(specials.begin(), specials.end(), values.begin());
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"x", fromFloats(shape, values)}}}, Tolerance(cpu::fast::kVectorAbsoluteError, 1e-6));
    EXPECT_EQ(layersNamed(layers, {"sigmoid + silu", "hard sigmoid + hard swish"}),
        (std::map<std::string, bool>{{"sigmoid + silu", true}, {"hard sigmoid + hard swish", true}}));
}

//! a [3, 4, 37] * b [3, 1, 37] + c [1, 4, 1], minus a scalar, exp, max with d [1, 1, 37]: every operand broadcast
//! a different way, over 444 elements (two blocks and a remainder).
NetworkMaker broadcastChain(std::vector<float> const& scalar)
{
    return [&scalar](INetworkDefinition& network) {
        ITensor& a = *network.addInput("a", DataType::kFLOAT, Dims3{3, 4, 37});
        ITensor& b = *network.addInput("b", DataType::kFLOAT, Dims3{3, 1, 37});
        ITensor& c = *network.addInput("c", DataType::kFLOAT, Dims3{1, 4, 1});
        ITensor& d = *network.addInput("d", DataType::kFLOAT, Dims3{1, 1, 37});
        ITensor& product = binary(network, a, b, ElementWiseOperation::kPROD, "mul");
        ITensor& sum = binary(network, product, c, ElementWiseOperation::kSUM, "add");
        ITensor& less
            = binary(network, sum, constantOf(network, {1, 1, 1}, scalar, "scalar"), ElementWiseOperation::kSUB, "sub");
        ITensor& raised = unary(network, less, UnaryOperation::kEXP, "exp");
        markOutput(network, binary(network, raised, d, ElementWiseOperation::kMAX, "max"));
    };
}

Tensors broadcastInputs(uint32_t seed)
{
    return {{"a", randomTensor({3, 4, 37}, seed)}, {"b", randomTensor({3, 1, 37}, seed + 1)},
        {"c", randomTensor({1, 4, 1}, seed + 2)}, {"d", randomTensor({1, 1, 37}, seed + 3)}};
}

TEST(PointwiseChains, BroadcastOperandsMatchTheReference)
{
    // Within exp's tolerance (vector_functions.h): an operand gathered from the wrong place would be far off.
    std::vector<float> const scalar{0.25F};
    std::map<std::string, bool> const layers = expectFastMatchesReference(broadcastChain(scalar),
        {broadcastInputs(31), broadcastInputs(35)}, Tolerance(0.0, cpu::fast::kVectorRelativeError));
    EXPECT_EQ(layersNamed(layers, {"mul + add + sub + exp + max"}),
        (std::map<std::string, bool>{{"mul + add + sub + exp + max", true}}));
}

TEST(PointwiseChains, ResultsAreTheSameAtEveryThreadCount)
{
    std::vector<float> const scalar{0.25F};
    std::vector<uint8_t> const blob = buildCpuPlan(broadcastChain(scalar), CpuKernels::kFAST);
    std::vector<Tensors> const runs{broadcastInputs(41)};
    std::vector<Tensors> const one = runCpuPlan(blob, runs, 1);
    for (int32_t threads : {2, 3, 7})
    {
        std::vector<Tensors> const more = runCpuPlan(blob, runs, threads);
        ASSERT_EQ(more.size(), 1U);
        EXPECT_EQ(more[0].at("output").bytes, one[0].at("output").bytes) << threads << " threads";
    }
}

TEST(PointwiseChains, LargeTensorsSplitOverThreadsMatchTheReference)
{
    // 2 * 37 * 129 = 9,546 elements: 38 blocks, the last one partial; a GELU written with tanh, kept as layers.
    std::vector<float> const half{0.5F};
    std::vector<float> const one{1.0F};
    auto maker = [&](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims3{2, 37, 129});
        ITensor& t = activation(network, x, ActivationType::kTANH, 0.0F, 0.0F, "tanh");
        ITensor& onePlus
            = binary(network, t, constantOf(network, {1, 1, 1}, one, "one"), ElementWiseOperation::kSUM, "add");
        ITensor& halfX
            = binary(network, x, constantOf(network, {1, 1, 1}, half, "half"), ElementWiseOperation::kPROD, "mul half");
        markOutput(network, binary(network, halfX, onePlus, ElementWiseOperation::kPROD, "mul"));
    };
    BuildSettings const settings = {};
    std::vector<uint8_t> const fast = buildCpuPlan(maker, CpuKernels::kFAST, settings);
    std::vector<uint8_t> const reference = buildCpuPlan(maker, CpuKernels::kREFERENCE, settings);
    std::vector<Tensors> const runs{{{"x", randomTensor({2, 37, 129}, 51)}}};
    HostTensor const expected = runCpuPlan(reference, runs, 1).at(0).at("output");
    HostTensor const oneThread = runCpuPlan(fast, runs, 1).at(0).at("output");
    // tanh is the fast path's FP32 one (vector_functions.h); 1 + tanh cancels where tanh nears -1, hence the
    // absolute part.
    expectClose(oneThread, expected, Tolerance(1e-6, 4 * cpu::fast::kVectorRelativeError), "chain");
    for (int32_t threads : {2, 4})
    {
        EXPECT_EQ(runCpuPlan(fast, runs, threads).at(0).at("output").bytes, oneThread.bytes) << threads << " threads";
    }
    std::map<std::string, bool> const layers = fastPathLayers(fast);
    EXPECT_EQ(layersNamed(layers, {"tanh + add + mul half + mul"}),
        (std::map<std::string, bool>{{"tanh + add + mul half + mul", true}}));
}

TEST(PointwiseChains, AnIntermediateThatIsANetworkOutputOrReadElsewhereEndsTheChain)
{
    std::vector<float> const one{1.0F};
    auto maker = [&](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims3{2, 3, 11});
        ITensor& shifted
            = binary(network, x, constantOf(network, {1, 1, 1}, one, "one"), ElementWiseOperation::kSUM, "add");
        ITensor& relu = activation(network, shifted, ActivationType::kRELU, 0.0F, 0.0F, "relu");
        relu.setName("relu out");
        network.markOutput(relu); // a network output: not fused with what reads it
        ITensor& root = unary(network, relu, UnaryOperation::kSQRT, "sqrt");
        ITensor& negated = unary(network, root, UnaryOperation::kNEG, "neg");
        // neg is read by the reduce as well as by the sum: it ends a chain of its own.
        ITensor& summed = binary(
            network, negated, meanOfLastAxis(network, negated, 3, "mean"), ElementWiseOperation::kSUM, "add mean");
        markOutput(network, unary(network, summed, UnaryOperation::kABS, "abs"));
    };
    // The mean is oneDNN's (in float), the reference's in double.
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({2, 3, 11}, 61)}}}, Tolerance(1e-6, 1e-5));
    EXPECT_EQ(layersNamed(layers, {"add + relu", "sqrt + neg", "add mean + abs", "mean"}),
        (std::map<std::string, bool>{
            {"add + relu", true}, {"sqrt + neg", true}, {"add mean + abs", true}, {"mean", true}}));
}

TEST(PointwiseChains, AnOperandOfAnotherShapeThatDoesNotBroadcastIntoTheChainIsNotTaken)
{
    // a [1, 5] + b [4, 1] is [4, 5]: the sum broadcasts both operands up, so relu after it fuses with it, but the
    // layer before (exp of a, [1, 5]) has another shape than the chain's and stays alone.
    auto maker = [](INetworkDefinition& network) {
        ITensor& a = *network.addInput("a", DataType::kFLOAT, Dims2{1, 5});
        ITensor& b = *network.addInput("b", DataType::kFLOAT, Dims2{4, 1});
        ITensor& raised = unary(network, a, UnaryOperation::kEXP, "exp");
        ITensor& sum = binary(network, raised, b, ElementWiseOperation::kSUM, "add");
        markOutput(network, activation(network, sum, ActivationType::kRELU, 0.0F, 0.0F, "relu"));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"a", randomTensor({1, 5}, 71)}, {"b", randomTensor({4, 1}, 72)}}}, 0.0);
    EXPECT_EQ(layers.count("exp"), 1U);
    EXPECT_EQ(layersNamed(layers, {"add + relu"}), (std::map<std::string, bool>{{"add + relu", true}}));
}

//! exp(a) + b, then ReLU, of two inputs [batch, 3, 7] whose batches are their own (`aBatches` and `bBatches`: the
//! profile's minimum and maximum): the sum's batch is another expression than exp's, their broadcast.
NetworkMaker expSumOfOwnBatches()
{
    return [](INetworkDefinition& network) {
        ITensor& a = *network.addInput("a", DataType::kFLOAT, Dims3{-1, 3, 7});
        ITensor& b = *network.addInput("b", DataType::kFLOAT, Dims3{-1, 3, 7});
        ITensor& raised = unary(network, a, UnaryOperation::kEXP, "exp");
        ITensor& sum = binary(network, raised, b, ElementWiseOperation::kSUM, "add");
        markOutput(network, activation(network, sum, ActivationType::kRELU, 0.0F, 0.0F, "relu"));
        nameOutputs(network);
    };
}

BuildSettings batches(std::pair<int64_t, int64_t> aBatches, std::pair<int64_t, int64_t> bBatches)
{
    return [=](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        for (auto const& [name, range] : {std::pair{"a", aBatches}, std::pair{"b", bBatches}})
        {
            shapes->setDimensions(name, OptProfileSelector::kMIN, Dims3{range.first, 3, 7});
            shapes->setDimensions(name, OptProfileSelector::kOPT, Dims3{range.second, 3, 7});
            shapes->setDimensions(name, OptProfileSelector::kMAX, Dims3{range.second, 3, 7});
        }
        config.addOptimizationProfile(shapes);
    };
}

TEST(PointwiseChains, ExtentsTheProfileFixesAreTheChainsShape)
{
    // Both batches fixed at 2: exp's [2, 3, 7] is the sum's shape at every run, and exp joins the chain.
    BuildSettings const fixed = batches({2, 2}, {2, 2});
    auto const chains = chainsOf(expSumOfOwnBatches(), fixed);
    ASSERT_EQ(chains.size(), 1U);
    EXPECT_EQ(chains[0].first, "exp + add + relu");
    EXPECT_EQ(chains[0].second, (std::vector<std::string>{"a", "b"}));
    std::map<std::string, bool> const layers = expectFastMatchesReference(expSumOfOwnBatches(),
        {{{"a", randomTensor({2, 3, 7}, 81)}, {"b", randomTensor({2, 3, 7}, 82)}}},
        Tolerance(0.0, cpu::fast::kVectorRelativeError), fixed);
    EXPECT_EQ(layersNamed(layers, {"exp + add + relu"}), (std::map<std::string, bool>{{"exp + add + relu", true}}));
    // Batches of 1 to 3 each: a of 1 broadcasts into b's 3, so neither exp's shape nor its operands' is always the
    // sum's, and the sum, whose operands broadcast along axes the plan cannot tell, joins no chain.
    BuildSettings const ranges = batches({1, 3}, {1, 3});
    EXPECT_TRUE(chainsOf(expSumOfOwnBatches(), ranges).empty());
    expectFastMatchesReference(expSumOfOwnBatches(),
        {{{"a", randomTensor({1, 3, 7}, 83)}, {"b", randomTensor({3, 3, 7}, 84)}},
            {{"a", randomTensor({2, 3, 7}, 85)}, {"b", randomTensor({2, 3, 7}, 86)}}},
        Tolerance(0.0, cpu::fast::kVectorRelativeError), ranges);
}

TEST(PointwiseChains, TheReferencePlanRunsEveryLayerAndTheInspectorNamesTheFusedOnes)
{
    std::vector<float> const scalar{0.25F};
    std::map<std::string, bool> const reference
        = fastPathLayers(buildCpuPlan(broadcastChain(scalar), CpuKernels::kREFERENCE));
    for (char const* name : {"mul", "add", "sub", "exp", "max"})
    {
        EXPECT_EQ(reference.count(name), 1U) << name;
    }
    std::vector<uint8_t> const blob = buildCpuPlan(broadcastChain(scalar), CpuKernels::kFAST);
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IEngineInspector> inspector(engine->createEngineInspector());
    std::string const described = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_NE(described.find("mul + add + sub + exp + max"), std::string::npos) << described;
    EXPECT_NE(described.find("PointWise"), std::string::npos) << described;
    EXPECT_NE(described.find("fused point-wise chain"), std::string::npos) << described;
}

} // namespace
} // namespace kiln::test
