// The normalization fusion (backend/cuda/passes/normalization_fusion.h, which the CUDA backend runs) and the CPU
// reference of the layer it makes (network::FusedNormalizationParams), without a GPU: a CPU reference plan is built,
// the pass applied to it, and the fused plan's outputs compared with the unfused plan's, which run every layer as the
// network wrote it. Residual sums into INormalizationLayer, LayerNorm's and RMSNorm's expansions in each order the
// exports write them, FP32, FP16 and BF16 builds, a second reader of the sum, weights of one value, epsilon, operands
// that repeat along the outer axes (known when building, or only when running); what must stay unfused; the plan round
// trip, the inspector's view and the kernel's refusals.
#include "expect_close.h"
#include "host_tensor.h"
#include "normalization_networks.h"
#include "test_logger.h"

#include "backend/cuda/passes/normalization_fusion.h"
#include "network/fused/fused_normalization.h"
#include "plan/plan_format.h"

#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using namespace kiln::test::norm;
using kiln::plan::PlanModel;

using NetworkMaker = std::function<void(INetworkDefinition&)>;
using Tensors = std::map<std::string, HostTensor>;
//! What a test sets on the builder's configuration beyond the backend, the kernels and the precision flag.
using BuildSettings = std::function<void(IBuilder&, IBuilderConfig&)>;

//! The CPU reference plan of `maker`'s network, built with `precision` allowed (kFLOAT: none asked).
std::vector<uint8_t> referencePlan(NetworkMaker const& maker, DataType precision, BuildSettings const& settings = {})
{
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
    if (precision != DataType::kFLOAT)
    {
        config->setFlag(precision == DataType::kHALF ? BuilderFlag::kFP16 : BuilderFlag::kBF16);
    }
    if (settings)
    {
        settings(*builder, *config);
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    auto const* bytes = plan ? static_cast<uint8_t const*>(plan->data()) : nullptr;
    return plan ? std::vector<uint8_t>(bytes, bytes + plan->size()) : std::vector<uint8_t>{};
}

PlanModel modelOf(std::vector<uint8_t> const& blob)
{
    PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    return model;
}

//! Runs plan `blob` once on the CPU; every output by name. `error` gets what the logger says where the run fails.
Tensors runCpu(std::vector<uint8_t> const& blob, Tensors const& inputs, std::string* error = nullptr)
{
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    if (context == nullptr)
    {
        // Where the caller expects a failure, the plan reader refusing the record is one.
        EXPECT_TRUE(error != nullptr) << logger.errors();
        if (error != nullptr)
        {
            *error = logger.errors();
        }
        return {};
    }
    Tensors outputs;
    for (auto const& [name, input] : inputs)
    {
        Dims dims{};
        dims.nbDims = static_cast<int32_t>(input.shape.size());
        std::copy(input.shape.begin(), input.shape.end(), dims.d);
        EXPECT_TRUE(context->setInputShape(name.c_str(), dims));
        EXPECT_TRUE(context->setTensorAddress(name.c_str(), const_cast<uint8_t*>(input.bytes.data())));
    }
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* name = engine->getIOTensorName(i);
        if (engine->getTensorIOMode(name) == TensorIOMode::kINPUT)
        {
            continue;
        }
        Dims const dims = context->getTensorShape(name);
        outputs[name] = zeros(std::vector<int64_t>(dims.d, dims.d + dims.nbDims), engine->getTensorDataType(name));
        EXPECT_TRUE(context->setTensorAddress(name, outputs[name].bytes.data()));
    }
    bool const ran = context->enqueueV3(nullptr);
    if (error != nullptr)
    {
        *error = logger.errors();
        return ran ? outputs : Tensors{};
    }
    EXPECT_TRUE(ran) << logger.errors();
    return outputs;
}

Tensors inputsOf(Case const& c)
{
    size_t count = 1;
    for (int64_t extent : c.shape)
    {
        count *= static_cast<size_t>(extent);
    }
    Tensors inputs{{"a", fromFloats(c.shape, valuesOf(count, 0.0F))}};
    if (c.residual)
    {
        std::vector<int64_t> const shape = residualShape(c);
        inputs["b"] = fromFloats(shape, valuesOf(count / static_cast<size_t>(c.shape[0] / shape[0]), 1.3F, 0.5F));
    }
    return inputs;
}

//! One case built in one precision, before and after the pass.
struct Fusion
{
    PlanModel unfused;
    PlanModel fused;
    Tensors expected; //!< the unfused plan's outputs
    Tensors actual;   //!< the fused plan's
};

Fusion fuse(NetworkMaker const& maker, Tensors const& inputs, DataType precision, BuildSettings const& settings = {})
{
    Fusion f;
    std::vector<uint8_t> const blob = referencePlan(maker, precision, settings);
    f.unfused = modelOf(blob);
    f.fused = f.unfused;
    kiln::cuda::fuseNormalizations(f.fused);
    std::vector<uint8_t> const fusedBlob = kiln::plan::writePlan(f.fused);
    // The fused layer's fields survive the plan: read back and written again, the bytes are the same.
    EXPECT_EQ(kiln::plan::writePlan(modelOf(fusedBlob)), fusedBlob);
    f.expected = runCpu(blob, inputs);
    f.actual = runCpu(fusedBlob, inputs);
    return f;
}

//! The names of `model`'s layers other than constants.
std::set<std::string> computingLayers(PlanModel const& model)
{
    std::set<std::string> names;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type != LayerType::kCONSTANT)
        {
            names.insert(layer.name);
        }
    }
    return names;
}

int64_t fusedLayers(PlanModel const& model)
{
    return std::count_if(model.layers.begin(), model.layers.end(),
        [](kiln::plan::LayerRecord const& l) { return l.type == kiln::network::kFusedNormalizationLayerType; });
}

std::string precisionName(DataType precision)
{
    return precision == DataType::kHALF ? "fp16" : precision == DataType::kBF16 ? "bf16" : "fp32";
}

//! Checks that `c` fuses into the one layer `name` (beside `next`, the sum's other reader) and computes what the
//! unfused plan computes, within `tolerance` (the sum, a rounding of the same additions, exactly).
void expectFused(Case const& c, DataType precision, std::string const& name, Tolerance tolerance)
{
    std::string const what = c.name + " " + precisionName(precision);
    Fusion const f = fuse(networkOf(c), inputsOf(c), precision);
    std::set<std::string> expectedLayers{name};
    if (c.form == Form::kRMS_LLAMA && !c.residual)
    {
        expectedLayers.insert("cast"); // x's own cast to float, which nothing before it can write
    }
    if (c.sumRead)
    {
        expectedLayers.insert("next");
    }
    EXPECT_EQ(computingLayers(f.fused), expectedLayers) << what;
    ASSERT_EQ(f.actual.size(), f.expected.size()) << what;
    for (auto const& [output, expected] : f.expected)
    {
        if (output == "s")
        {
            EXPECT_EQ(f.actual.at(output).bytes, expected.bytes) << what << " output s";
            continue;
        }
        expectClose(f.actual.at(output), expected, tolerance, what + " output " + output);
    }
}

std::vector<DataType> const kPrecisions{DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

TEST(FusedNormalization, ResidualSumsFoldIntoNormalizationLayers)
{
    // The fused reference adds as the element-wise reference does and normalizes as the normalization reference does
    // (in double, in the same order): the results agree to the last bit but for contractions a compiler may make.
    std::vector<Case> const cases{
        {"residual", {2, 5, 31}, Form::kLAYER, 1, 1e-5F, true},
        {"second reader", {2, 5, 31}, Form::kLAYER, 1, 1e-5F, true, false, true},
        {"added bias", {3, 7, 24}, Form::kLAYER, 1, 1e-5F, true, true},
        {"added bias, second reader", {3, 7, 24}, Form::kLAYER, 1, 1e-5F, true, true, true},
        {"two axes", {3, 4, 6}, Form::kLAYER, 2, 1e-5F, true, false, true},
        {"one-value weights", {4, 9}, Form::kLAYER, 1, 1e-5F, true, false, false, WeightKind::kONE},
        {"large epsilon", {2, 3, 17}, Form::kLAYER, 1, 0.5F, true},
        {"rows of one element", {6, 1}, Form::kLAYER, 1, 1e-5F, true, false, true},
        {"repeated residual", {2, 5, 31}, Form::kLAYER, 1, 1e-5F, true, false, false, WeightKind::kROW, true},
        {"repeated residual, bias, second reader", {3, 4, 8}, Form::kLAYER, 1, 1e-5F, true, true, true,
            WeightKind::kROW, true},
    };
    for (Case const& c : cases)
    {
        std::string const name = std::string(c.addedBias ? "add bias + " : "") + "add + norm";
        for (DataType precision : kPrecisions)
        {
            expectFused(c, precision, name, Tolerance(1e-6, 1e-6));
        }
    }
}

//! How far the fused layer (statistics in double, one rounding at the end) may lie from the expansion's layers
//! (each rounding its result to the precision): four roundings at the scale of the results (about 1), 2^-11 each in
//! FP16 and 2^-8 in BF16. Measured: at most 2e-3 in FP16, 3e-2 (of sums near 8) in BF16, 2.4e-7 in FP32.
Tolerance expansionTolerance(DataType precision)
{
    return precision == DataType::kFLOAT ? Tolerance(1e-5, 1e-4)
        : precision == DataType::kHALF   ? Tolerance(2e-3, 2e-3)
                                         : Tolerance(1.6e-2, 1.6e-2);
}

TEST(FusedNormalization, LayerNormExpansionsBecomeOneLayer)
{
    std::string const divided = "mean + sub + pow + variance + add eps + sqrt + div";
    std::string const products = "mean + sub + square + variance + add eps + sqrt + reciprocal + mul inverse";
    std::vector<std::pair<Case, std::string>> const cases{
        {{"expanded", {2, 5, 31}, Form::kEXPANDED}, divided + " + mul gamma + add beta"},
        {{"products, weights first", {2, 5, 31}, Form::kEXPANDED_PRODUCT}, products + " + mul gamma + add beta"},
        {{"no weights", {3, 40}, Form::kEXPANDED, 1, 1e-5F, false, false, false, WeightKind::kNONE}, divided},
        {{"one-value weights", {3, 40}, Form::kEXPANDED_PRODUCT, 1, 1e-5F, false, false, false, WeightKind::kONE},
            products + " + mul gamma + add beta"},
        {{"two axes, epsilon", {2, 3, 4, 5}, Form::kEXPANDED, 2, 1e-2F}, divided + " + mul gamma + add beta"},
        {{"after a residual", {2, 5, 31}, Form::kEXPANDED, 1, 1e-5F, true, false, true},
            "add + " + divided + " + mul gamma + add beta"},
        {{"after a residual with a bias", {2, 6, 16}, Form::kEXPANDED_PRODUCT, 1, 1e-5F, true, true},
            "add bias + add + " + products + " + mul gamma + add beta"},
    };
    for (auto const& [c, name] : cases)
    {
        for (DataType precision : kPrecisions)
        {
            expectFused(c, precision, name, expansionTolerance(precision));
        }
    }
}

TEST(FusedNormalization, RmsNormExpansionsBecomeOneLayer)
{
    std::string const t5 = "pow + variance + add eps + sqrt + inverse + mul";
    std::vector<std::pair<Case, std::string>> const cases{
        {{"T5", {2, 5, 32}, Form::kRMS_T5}, t5 + " + mul gamma"},
        {{"LLaMA", {2, 5, 32}, Form::kRMS_LLAMA}, t5 + " + cast back + mul gamma"},
        {{"divided", {3, 31}, Form::kRMS_DIVIDE}, "square + variance + add eps + sqrt + div + mul gamma"},
        {{"no weight", {3, 31}, Form::kRMS_DIVIDE, 1, 1e-5F, false, false, false, WeightKind::kNONE},
            "square + variance + add eps + sqrt + div"},
        {{"one-value weight, epsilon", {4, 3, 8}, Form::kRMS_T5, 2, 1e-1F, false, false, false, WeightKind::kONE},
            t5 + " + mul gamma"},
        // T5 and LLaMA read the residual stream again after the norm (the next block's sum); LLaMA casts it first.
        {{"T5 residual", {2, 5, 32}, Form::kRMS_T5, 1, 1e-6F, true, false, true}, "add + " + t5 + " + mul gamma"},
        {{"LLaMA residual", {2, 5, 32}, Form::kRMS_LLAMA, 1, 1e-6F, true, false, true},
            "add + cast + " + t5 + " + cast back + mul gamma"},
        {{"T5 repeated residual", {2, 5, 32}, Form::kRMS_T5, 1, 1e-6F, true, false, true, WeightKind::kROW, true},
            "add + " + t5 + " + mul gamma"},
    };
    for (auto const& [c, name] : cases)
    {
        for (DataType precision : kPrecisions)
        {
            expectFused(c, precision, name, expansionTolerance(precision));
        }
    }
}

TEST(FusedNormalization, RmsNormAgainstValuesWorkedByHand)
{
    // Rows (3, 4) and (1, 1): mean squares 12.5 and 1; with epsilon 0 and weights (2, 1): (2 * 3 / sqrt(12.5),
    // 4 / sqrt(12.5)) and (2, 1).
    Case const c{"by hand", {2, 2}, Form::kRMS_T5, 1, 0.0F};
    auto held = std::make_shared<Held>();
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("a", DataType::kFLOAT, Dims{2, {2, 2}});
        ITensor& inverse = binary(network, held->constant(network, {1, 1}, {1.0F}, "one"),
            rootOf(*held, network, c, binary(network, *x, *x, ElementWiseOperation::kPROD, "square")),
            ElementWiseOperation::kDIV, "inverse");
        ITensor& n = binary(network, *x, inverse, ElementWiseOperation::kPROD, "mul");
        ITensor& y = binary(
            network, held->constant(network, {1, 2}, {2.0F, 1.0F}, "gamma"), n, ElementWiseOperation::kPROD, "mul w");
        y.setName("y");
        network.markOutput(y);
    };
    Fusion const f = fuse(maker, {{"a", fromFloats({2, 2}, {3, 4, 1, 1})}}, DataType::kFLOAT);
    EXPECT_EQ(fusedLayers(f.fused), 1);
    float const root = std::sqrt(12.5F);
    expectClose(f.actual.at("y").floats(), {6.0F / root, 4.0F / root, 2.0F, 1.0F}, 1e-6F);
}

//! The layers of `model` that compute, as fuse() leaves them, where nothing (or not all) may fuse; the outputs agree.
std::set<std::string> afterFusion(NetworkMaker const& maker, Tensors const& inputs,
    DataType precision = DataType::kFLOAT, BuildSettings const& settings = {})
{
    Fusion const f = fuse(maker, inputs, precision, settings);
    for (auto const& [output, expected] : f.expected)
    {
        expectClose(f.actual.at(output), expected, expansionTolerance(precision), "output " + output);
    }
    return computingLayers(f.fused);
}

//! a [3, 8] + b of `bShape`, then y = LayerNorm(sum) over the last axis; `between` adds a reader of the sum before it.
NetworkMaker sumThenNorm(std::vector<int64_t> const& bShape, bool between, std::shared_ptr<Held> const& held)
{
    return [=](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims{2, {3, 8}});
        ITensor* b = network.addInput("b", DataType::kFLOAT, dimsOf(bShape));
        ITensor& s = binary(network, *a, *b, ElementWiseOperation::kSUM, "add");
        if (between)
        {
            ITensor& w = binary(network, s, s, ElementWiseOperation::kPROD, "between");
            w.setName("w");
            network.markOutput(w);
        }
        ITensor& gamma = held->constant(network, {1, 8}, {1, 2, 3, 4, 5, 6, 7, 8}, "gamma");
        INormalizationLayer* norm = network.addNormalization(s, gamma, gamma, 2U);
        norm->setName("norm");
        norm->getOutput(0)->setName("y");
        network.markOutput(*norm->getOutput(0));
    };
}

Tensors sumInputs(std::vector<int64_t> const& bShape)
{
    auto const count = static_cast<size_t>(bShape[0] * bShape[1]);
    return {{"a", fromFloats({3, 8}, valuesOf(24, 0.0F))}, {"b", fromFloats(bShape, valuesOf(count, 2.0F))}};
}

TEST(FusedNormalization, SumsThatAreNoResidualStay)
{
    auto const held = std::make_shared<Held>();
    std::vector<int64_t> const full{3, 8};
    // One value per row: the operand varies along the rows' axis, which no row of the fused layer can read.
    std::vector<int64_t> const perRow{3, 1};
    EXPECT_EQ(afterFusion(sumThenNorm(perRow, false, held), sumInputs(perRow)), (std::set<std::string>{"add", "norm"}));
    // A reader between the sum and the normalization would read the sum before the fused layer wrote it.
    EXPECT_EQ(
        afterFusion(sumThenNorm(full, true, held), sumInputs(full)), (std::set<std::string>{"add", "between", "norm"}));
    EXPECT_EQ(afterFusion(sumThenNorm(full, false, held), sumInputs(full)), (std::set<std::string>{"add + norm"}));
    // One row for every row of a (a position embedding): it repeats, and fuses.
    std::vector<int64_t> const oneRow{1, 8};
    EXPECT_EQ(afterFusion(sumThenNorm(oneRow, false, held), sumInputs(oneRow)), (std::set<std::string>{"add + norm"}));
}

//! LayerNorm's expansion over [2, 5, 31] with what `change` does to it: its tensors by name.
NetworkMaker expansionWith(std::function<void(INetworkDefinition&, std::map<std::string, ITensor*>&)> const& change)
{
    auto held = std::make_shared<Held>();
    return [held, change](INetworkDefinition& network) {
        Case const c{"", {2, 5, 31}, Form::kEXPANDED};
        ITensor* x = network.addInput("a", DataType::kFLOAT, dimsOf(c.shape));
        std::map<std::string, ITensor*> named;
        ITensor& d = binary(network, *x, mean(network, c, *x, "mean"), ElementWiseOperation::kSUB, "sub");
        named["variance"] = &mean(network, c,
            binary(network, d, held->constant(network, {1, 1, 1}, {2.0F}, "two"), ElementWiseOperation::kPOW, "pow"),
            "variance");
        named["epsilon"] = &held->constant(network, {1, 1, 1}, {1e-5F}, "eps");
        named["gamma"] = &weightOf(*held, network, c, 0.5F, 1.5F, false, "gamma");
        change(network, named);
        ITensor& root = unary(network,
            binary(network, *named["variance"], *named["epsilon"], ElementWiseOperation::kSUM, "add eps"),
            UnaryOperation::kSQRT, "sqrt");
        ITensor& n = binary(network, d, root, ElementWiseOperation::kDIV, "div");
        ITensor& y = binary(network, n, *named["gamma"], ElementWiseOperation::kPROD, "mul gamma");
        y.setName("y");
        network.markOutput(y);
    };
}

TEST(FusedNormalization, ExpansionsThatAreNotNormalizationsStay)
{
    Tensors const inputs{{"a", fromFloats({2, 5, 31}, valuesOf(310, 0.0F))}};
    std::string const core = "mean + sub + pow + variance + add eps + sqrt + div";
    EXPECT_EQ(afterFusion(expansionWith([](INetworkDefinition&, std::map<std::string, ITensor*>&) {}), inputs),
        (std::set<std::string>{core + " + mul gamma"}));
    // The variance read elsewhere too.
    auto const varianceOut = [](INetworkDefinition& network, std::map<std::string, ITensor*>& named) {
        named["variance"]->setName("var");
        network.markOutput(*named["variance"]);
    };
    EXPECT_EQ(afterFusion(expansionWith(varianceOut), inputs).count(core), 0U);
    // An epsilon known only at run time.
    Tensors withEpsilon = inputs;
    withEpsilon["e"] = fromFloats({1, 1, 1}, {1e-5F});
    auto const epsilonIn = [](INetworkDefinition& network, std::map<std::string, ITensor*>& named) {
        named["epsilon"] = network.addInput("e", DataType::kFLOAT, Dims{3, {1, 1, 1}});
    };
    EXPECT_EQ(afterFusion(expansionWith(epsilonIn), withEpsilon).count(core), 0U);
    // A weight that varies along an axis that is not normalized: the normalization fuses, the product stays.
    auto held = std::make_shared<Held>();
    auto const perToken = [held](INetworkDefinition& network, std::map<std::string, ITensor*>& named) {
        named["gamma"] = &held->constant(network, {1, 5, 1}, {1, 2, 3, 4, 5}, "gamma");
    };
    EXPECT_EQ(afterFusion(expansionWith(perToken), inputs), (std::set<std::string>{core, "mul gamma"}));
}

TEST(FusedNormalization, LayersComputingInOtherPrecisionsStay)
{
    Case const c{"mixed", {2, 5, 31}, Form::kRMS_T5};
    NetworkMaker const plain = networkOf(c);
    auto const mixed = [plain](INetworkDefinition& network) {
        plain(network);
        for (int32_t l = 0; l < network.getNbLayers(); ++l)
        {
            if (std::string(network.getLayer(l)->getName()) == "variance")
            {
                network.getLayer(l)->setPrecision(DataType::kFLOAT); // the mean of squares kept in FP32
            }
        }
    };
    Tensors const inputs{{"a", fromFloats(c.shape, valuesOf(310, 0.0F))}};
    EXPECT_EQ(afterFusion(plain, inputs, DataType::kHALF).size(), 1U);
    BuildSettings const obey
        = [](IBuilder&, IBuilderConfig& config) { config.setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS); };
    EXPECT_GT(afterFusion(mixed, inputs, DataType::kHALF, obey).size(), 1U);
}

TEST(FusedNormalization, TheInspectorShowsTheFusedLayer)
{
    Case const c{"inspected", {4, 9}, Form::kLAYER, 1, 1e-5F, true, false, true};
    Fusion const f = fuse(networkOf(c), inputsOf(c), DataType::kFLOAT);
    std::vector<uint8_t> const blob = kiln::plan::writePlan(f.fused);
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IEngineInspector> inspector(engine->createEngineInspector());
    std::string described;
    for (int32_t l = 0; l < engine->getNbLayers(); ++l)
    {
        described += std::string(inspector->getLayerInformation(l, LayerInformationFormat::kONELINE)) + "\n";
    }
    // The constants' tensors have names of Kiln's making: the sum's operands come first, the outputs last.
    EXPECT_NE(described.find("add + norm [FusedNormalization] precision FLOAT: b FLOAT [4,9], a FLOAT [4,9], "),
        std::string::npos)
        << described;
    EXPECT_NE(described.find("-> y FLOAT [4,9], s FLOAT [4,9]"), std::string::npos) << described;
}

TEST(FusedNormalization, TheReferenceRefusesWhatItCannotNormalize)
{
    Case const c{"refused", {4, 9}, Form::kLAYER, 1, 1e-5F, true};
    Fusion const f = fuse(networkOf(c), inputsOf(c), DataType::kFLOAT);
    auto const fused = std::find_if(f.fused.layers.begin(), f.fused.layers.end(),
        [](kiln::plan::LayerRecord const& l) { return l.type == kiln::network::kFusedNormalizationLayerType; });
    ASSERT_NE(fused, f.fused.layers.end());
    auto const errorOf = [&](std::function<void(kiln::plan::LayerRecord&)> const& change) {
        PlanModel model = f.fused;
        change(model.layers[static_cast<size_t>(fused - f.fused.layers.begin())]);
        std::string error;
        EXPECT_TRUE(runCpu(kiln::plan::writePlan(model), inputsOf(c), &error).empty());
        return error;
    };
    std::string const axes = errorOf([](kiln::plan::LayerRecord& layer) {
        auto params = std::make_shared<kiln::network::FusedNormalizationParams>(
            static_cast<kiln::network::FusedNormalizationParams const&>(*layer.params));
        params->normalizedAxes = 3;
        layer.params = params;
    });
    // The plan reader refuses the record at load (its kind's contract), where the reference would at run time.
    EXPECT_TRUE(
        axes.find("normalizes over 3 axes") != std::string::npos || axes.find("3 normalized axes") != std::string::npos)
        << axes;
    std::string const scale = errorOf([](kiln::plan::LayerRecord& layer) {
        layer.inputs[kiln::network::FusedNormalizationParams::kScale]
            = layer.inputs[kiln::network::FusedNormalizationParams::kResidual];
        layer.ioTypes.clear();
    });
    EXPECT_NE(scale.find("is neither a row"), std::string::npos) << scale;
}

//! a [-1, 5, 16] + b [-1, 5, 16] (each its own batch symbol: the builder cannot tell they agree) normalized by
//! INormalizationLayer; the sum is also an output.
NetworkMaker dynamicSum(std::shared_ptr<Held> const& held)
{
    return [held](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims{3, {-1, 5, 16}});
        ITensor* b = network.addInput("b", DataType::kFLOAT, Dims{3, {-1, 5, 16}});
        ITensor& s = binary(network, *a, *b, ElementWiseOperation::kSUM, "add");
        ITensor& gamma = held->constant(network, {1, 1, 16}, valuesOf(16, 0.5F, 1.0F), "gamma");
        INormalizationLayer* norm = network.addNormalization(s, gamma, gamma, 4U);
        norm->setName("norm");
        norm->getOutput(0)->setName("y");
        network.markOutput(*norm->getOutput(0));
        s.setName("s");
        network.markOutput(s);
    };
}

TEST(FusedNormalization, OperandsThatRepeatWhenTheLayerRunsFuse)
{
    BuildSettings const profiles = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* profile = builder.createOptimizationProfile();
        for (char const* input : {"a", "b"})
        {
            profile->setDimensions(input, OptProfileSelector::kMIN, Dims{3, {1, 5, 16}});
            profile->setDimensions(input, OptProfileSelector::kOPT, Dims{3, {2, 5, 16}});
            profile->setDimensions(input, OptProfileSelector::kMAX, Dims{3, {4, 5, 16}});
        }
        config.addOptimizationProfile(profile);
    };
    auto const held = std::make_shared<Held>();
    for (auto [aBatch, bBatch] : {std::pair<int64_t, int64_t>{3, 3}, {3, 1}, {1, 4}})
    {
        std::string const what = std::to_string(aBatch) + " + " + std::to_string(bBatch);
        Tensors const inputs{{"a", fromFloats({aBatch, 5, 16}, valuesOf(static_cast<size_t>(aBatch * 80), 0.0F))},
            {"b", fromFloats({bBatch, 5, 16}, valuesOf(static_cast<size_t>(bBatch * 80), 0.7F))}};
        Fusion const f = fuse(dynamicSum(held), inputs, DataType::kFLOAT, profiles);
        EXPECT_EQ(computingLayers(f.fused), (std::set<std::string>{"add + norm"})) << what;
        ASSERT_EQ(f.actual.size(), 2U) << what;
        EXPECT_EQ(f.actual.at("s").shape, (std::vector<int64_t>{std::max(aBatch, bBatch), 5, 16})) << what;
        EXPECT_EQ(f.actual.at("s").bytes, f.expected.at("s").bytes) << what;
        expectClose(f.actual.at("y"), f.expected.at("y"), Tolerance(1e-6, 1e-6), what);
    }
}

} // namespace
