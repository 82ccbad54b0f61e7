// Element-wise chains fused in CUDA plans (plan/passes/pointwise_fusion.h with the CUDA backend's rules, run by
// pointwise.cu): which layers become one (read from the plan, without a GPU), and that the fused kernel computes what
// the CPU reference computes layer by layer: GELU as ONNX exports it, LayerNorm's tail with broadcast operands (its
// variance a sum of squares over the count, which the normalization fusion leaves to the chains), SiLU
// and HardSwish inside a channels-last FP16 region, a chain longer than the kernel's program, FP32 and FP16; and a
// quantized network's residual sum, DQ(codes) + b -> Q -> DQ -> ReLU, whose Q -> DQ pairs join as steps (INT8, FP8).
#include "backend_comparison.h"
#include "named_layers.h"

#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/passes/fusion_rules.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/pointwise.h"
#include "network/layers/quantize.h"
#include "plan/passes/pointwise_fusion.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Constant values a network's layers keep pointing at until the plan is built.
struct Values
{
    std::vector<std::unique_ptr<std::vector<float>>> held;

    ITensor& constant(INetworkDefinition& network, Dims const& dims, std::vector<float> values, char const* name)
    {
        held.push_back(std::make_unique<std::vector<float>>(std::move(values)));
        std::vector<float> const& kept = *held.back();
        IConstantLayer* layer
            = network.addConstant(dims, Weights{DataType::kFLOAT, kept.data(), static_cast<int64_t>(kept.size())});
        layer->setName(name);
        return *layer->getOutput(0);
    }
};

ITensor& output(INetworkDefinition& network, ITensor& tensor, char const* name)
{
    tensor.setName(name);
    network.markOutput(tensor);
    return tensor;
}

Dims const kTokens{3, {2, 7, 37}}; // odd sizes: no extent a multiple of a warp

//! GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2))), after a bias add as a linear layer's output has.
NetworkMaker geluAfterBias(std::shared_ptr<Values> const& values)
{
    return [values](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kTokens);
        ITensor& bias = values->constant(network, Dims{3, {1, 1, 37}}, spread(37, -0.5F, 0.5F), "bias");
        ITensor& h = binary(network, x, bias, ElementWiseOperation::kSUM, "add bias");
        ITensor& root2 = values->constant(network, Dims{3, {1, 1, 1}}, {1.41421356F}, "sqrt2");
        ITensor& one = values->constant(network, Dims{3, {1, 1, 1}}, {1.0F}, "one");
        ITensor& half = values->constant(network, Dims{3, {1, 1, 1}}, {0.5F}, "half");
        ITensor& e
            = unary(network, binary(network, h, root2, ElementWiseOperation::kDIV, "div"), UnaryOperation::kERF, "erf");
        ITensor& g = binary(network, h, binary(network, e, one, ElementWiseOperation::kSUM, "add one"),
            ElementWiseOperation::kPROD, "mul");
        output(network, binary(network, g, half, ElementWiseOperation::kPROD, "mul half"), "y");
    };
}

//! x + bias, then GELU's tanh approximation as GPT-2's export spells it: (x * 0.5) * (1 + tanh(sqrt(2 / pi) * (x +
//! x^3 * 0.044715))).
NetworkMaker tanhGeluAfterBias(std::shared_ptr<Values> const& values)
{
    return [values](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kTokens);
        ITensor& bias = values->constant(network, Dims{3, {1, 1, 37}}, spread(37, -0.5F, 0.5F), "bias");
        ITensor& h = binary(network, x, bias, ElementWiseOperation::kSUM, "add bias");
        auto scalar = [&](float value, char const* name) -> ITensor& {
            return values->constant(network, Dims{3, {1, 1, 1}}, {value}, name);
        };
        ITensor& half = binary(network, h, scalar(0.5F, "half"), ElementWiseOperation::kPROD, "mul half");
        ITensor& cube = binary(network, h, scalar(3.0F, "three"), ElementWiseOperation::kPOW, "pow");
        ITensor& cubic = binary(network, cube, scalar(0.044715F, "c"), ElementWiseOperation::kPROD, "mul c");
        ITensor& inner = binary(network, h, cubic, ElementWiseOperation::kSUM, "add cubic");
        ITensor& scaled = binary(network, inner, scalar(0.7978845608F, "k"), ElementWiseOperation::kPROD, "mul k");
        IActivationLayer* tanh = network.addActivation(scaled, ActivationType::kTANH);
        tanh->setName("tanh");
        ITensor& onePlus
            = binary(network, *tanh->getOutput(0), scalar(1.0F, "one"), ElementWiseOperation::kSUM, "add one");
        output(network, binary(network, half, onePlus, ElementWiseOperation::kPROD, "mul"), "y");
    };
}

//! LayerNorm's tail over the last axis, the statistics computed by reductions (which end chains): (x - mean) /
//! sqrt(var + eps) * gamma + beta; mean and var broadcast along the last axis, gamma and beta along the others. The
//! variance is a mean of squares (ONNX's LayerNorm expansion, which the normalization fusion makes one layer) or,
//! where `summed`, a sum of squares times 1 / 37 (which it does not, so that the point-wise chains take it).
NetworkMaker layerNormTail(std::shared_ptr<Values> const& values, bool summed)
{
    return [values, summed](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kTokens);
        auto mean = [&](ITensor& t, char const* name) -> ITensor& {
            IReduceLayer* layer = network.addReduce(t, ReduceOperation::kAVG, 4U, true);
            layer->setName(name);
            return *layer->getOutput(0);
        };
        ITensor& centred = binary(network, x, mean(x, "mean"), ElementWiseOperation::kSUB, "sub");
        ITensor& two = values->constant(network, Dims{3, {1, 1, 1}}, {2.0F}, "two");
        ITensor& squares = binary(network, centred, two, ElementWiseOperation::kPOW, "pow");
        auto sumOverCount = [&]() -> ITensor& {
            IReduceLayer* sum = network.addReduce(squares, ReduceOperation::kSUM, 4U, true);
            sum->setName("sum of squares");
            ITensor& inverseCount = values->constant(network, Dims{3, {1, 1, 1}}, {1.0F / 37.0F}, "1/37");
            return binary(network, *sum->getOutput(0), inverseCount, ElementWiseOperation::kPROD, "variance");
        };
        ITensor& variance = summed ? sumOverCount() : mean(squares, "variance");
        ITensor& epsilon = values->constant(network, Dims{3, {1, 1, 1}}, {1e-5F}, "eps");
        ITensor& deviation = unary(network, binary(network, variance, epsilon, ElementWiseOperation::kSUM, "add eps"),
            UnaryOperation::kSQRT, "sqrt");
        ITensor& normal = binary(network, centred, deviation, ElementWiseOperation::kDIV, "div");
        ITensor& gamma = values->constant(network, Dims{3, {1, 1, 37}}, spread(37, 0.5F, 1.5F), "gamma");
        ITensor& beta = values->constant(network, Dims{3, {1, 1, 37}}, spread(37, -0.2F, 0.2F), "beta");
        output(network,
            binary(network, binary(network, normal, gamma, ElementWiseOperation::kPROD, "mul gamma"), beta,
                ElementWiseOperation::kSUM, "add beta"),
            "y");
    };
}

//! `length` unary steps in a row (alternately sin and a scaling), longer than one kernel program can hold.
NetworkMaker longChain(std::shared_ptr<Values> const& values, int32_t length)
{
    return [values, length](INetworkDefinition& network) {
        ITensor* t = network.addInput("x", DataType::kFLOAT, kTokens);
        ITensor& scale = values->constant(network, Dims{3, {1, 1, 1}}, {1.25F}, "scale");
        for (int32_t i = 0; i < length; ++i)
        {
            std::string const name = "step " + std::to_string(i);
            t = i % 2 == 0 ? &unary(network, *t, UnaryOperation::kSIN, name.c_str())
                           : &binary(network, *t, scale, ElementWiseOperation::kPROD, name.c_str());
        }
        output(network, *t, "y");
    };
}

//! conv -> SiLU (x * sigmoid(x)) -> conv -> HardSwish (x * clip(x + 3, 0, 6) / 6) -> conv, in FP16 channels-last.
NetworkMaker convolutionsWithActivations(std::shared_ptr<Values> const& values)
{
    return [values](INetworkDefinition& network) {
        constexpr int32_t kChannels = 8;
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, kChannels, 9, 7}});
        // The same weights in every network the maker builds, each convolution its own.
        auto convolve = [&](ITensor& input, float phase, char const* name) -> ITensor& {
            values->held.push_back(
                std::make_unique<std::vector<float>>(weightsOf(static_cast<size_t>(kChannels * kChannels * 9), phase)));
            std::vector<float> const& kernel = *values->held.back();
            IConvolutionLayer* conv = network.addConvolutionNd(input, kChannels, Dims{2, {3, 3}},
                Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
            conv->setPaddingNd(Dims{2, {1, 1}});
            conv->setName(name);
            return *conv->getOutput(0);
        };
        ITensor& a = convolve(*x, 1.0F, "conv a");
        IActivationLayer* sigmoid = network.addActivation(a, ActivationType::kSIGMOID);
        sigmoid->setName("sigmoid");
        ITensor& silu = binary(network, a, *sigmoid->getOutput(0), ElementWiseOperation::kPROD, "silu");
        ITensor& b = convolve(silu, 2.0F, "conv b");
        ITensor& three = values->constant(network, Dims{4, {1, 1, 1, 1}}, {3.0F}, "three");
        ITensor& sixth = values->constant(network, Dims{4, {1, 1, 1, 1}}, {1.0F / 6.0F}, "sixth");
        IActivationLayer* clip = network.addActivation(
            binary(network, b, three, ElementWiseOperation::kSUM, "add three"), ActivationType::kCLIP);
        clip->setAlpha(0.0F);
        clip->setBeta(6.0F);
        clip->setName("clip");
        ITensor& gate = binary(network, *clip->getOutput(0), sixth, ElementWiseOperation::kPROD, "mul sixth");
        ITensor& hardSwish = binary(network, b, gate, ElementWiseOperation::kPROD, "hard swish");
        output(network, convolve(hardSwish, 3.0F, "conv c"), "y");
    };
}

//! One Q -> DQ pair by `scale` into `type` codes, named after `name`.
ITensor& quantizeDequantize(
    INetworkDefinition& network, Values& values, ITensor& x, float scale, DataType type, std::string const& name)
{
    IQuantizeLayer* q
        = network.addQuantize(x, values.constant(network, Dims{}, {scale}, (name + " scale").c_str()), type);
    q->setName((name + " Q").c_str());
    IDequantizeLayer* dq = network.addDequantize(
        *q->getOutput(0), values.constant(network, Dims{}, {scale}, (name + " DQ scale").c_str()), DataType::kFLOAT);
    dq->setName((name + " DQ").c_str());
    return *dq->getOutput(0);
}

//! The residual sum of a quantized network (Model Optimizer's ConvNeXt): DQ(Q(x)) + b, quantized and dequantized by
//! one scale for the next block, then a ReLU. Codes of `type`; each pair's scale spans the values it rounds.
NetworkMaker residualThroughQuantization(std::shared_ptr<Values> const& values, DataType type)
{
    return [values, type](INetworkDefinition& network) {
        float const range = type == DataType::kFP8 ? 448.0F : 127.0F;
        ITensor& a = quantizeDequantize(
            network, *values, *network.addInput("x", DataType::kFLOAT, kTokens), 3.0F / range, type, "x");
        ITensor& sum = add(network, a, *network.addInput("b", DataType::kFLOAT, kTokens), "residual sum");
        ITensor& rounded = quantizeDequantize(network, *values, sum, 5.0F / range, type, "sum");
        output(network, relu(network, rounded, "relu"), "y");
    };
}

//! A residual sum alone onto its codes' grid: x + b, quantized and dequantized by one scale (the pair after
//! ConvNeXt's residual sums, whose operands are not codes).
NetworkMaker sumThroughQuantization(std::shared_ptr<Values> const& values, DataType type)
{
    return [values, type](INetworkDefinition& network) {
        float const range = type == DataType::kFP8 ? 448.0F : 127.0F;
        ITensor& sum = add(network, *network.addInput("x", DataType::kFLOAT, kTokens),
            *network.addInput("b", DataType::kFLOAT, kTokens), "residual sum");
        output(network, quantizeDequantize(network, *values, sum, 5.0F / range, type, "sum"), "y");
    };
}

int64_t pointwiseLayers(kiln::plan::PlanModel const& model)
{
    return layersOfKind(model, kiln::network::kPointwiseLayerType);
}

std::map<std::string, HostTensor> tokens()
{
    return {{"x", fromFloats({2, 7, 37}, spread(2 * 7 * 37, -3.0F, 2.5F))}};
}

//! x and b for residualThroughQuantization: x over its scale's range and a little past it (saturating), b such that
//! the sums fall anywhere on the sum's grid. b's values are FP16 values: a fused chain reads its inputs as stored,
//! where the FP16 sum read b converted to FP16.
std::map<std::string, HostTensor> residualInputs()
{
    std::vector<float> b(2 * 7 * 37);
    for (size_t i = 0; i < b.size(); ++i)
    {
        b[i] = std::round(1024.0F * std::sin(0.731F * static_cast<float>(i))) / 512.0F;
    }
    return {{"x", fromFloats({2, 7, 37}, spread(2 * 7 * 37, -3.3F, 3.2F))}, {"b", fromFloats({2, 7, 37}, b)}};
}

//! x and b for sumThroughQuantization: both FP16 values (a fused chain reads its inputs as stored, where the FP16 sum
//! read them converted to FP16), their sums over the sum's scale's range and a little past it (saturating).
std::map<std::string, HostTensor> sumInputs()
{
    std::map<std::string, HostTensor> inputs = residualInputs();
    std::vector<float> x(2 * 7 * 37);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = std::round(-1700.0F + 3400.0F * static_cast<float>(i) / static_cast<float>(x.size())) / 512.0F;
    }
    inputs.at("x") = fromFloats({2, 7, 37}, x);
    return inputs;
}

std::string kindOf(DataType type, bool fp16)
{
    return std::string(type == DataType::kFP8 ? "FP8" : "INT8") + (fp16 ? " fp16" : " fp32");
}

TEST(CudaBackendPointwiseChains, GeluAfterABiasIsOneLayer)
{
    // Building and reading a CUDA plan needs no GPU.
    auto const values = std::make_shared<Values>();
    std::pair<NetworkMaker, ActivationType> const forms[]
        = {{geluAfterBias(values), ActivationType::kGELU_ERF}, {tanhGeluAfterBias(values), ActivationType::kGELU_TANH}};
    for (auto const& [maker, activation] : forms)
    {
        for (bool fp16 : {false, true})
        {
            std::string const what = std::to_string(static_cast<int>(activation)) + (fp16 ? " fp16" : " fp32");
            kiln::plan::PlanModel const model = cudaPlanOf(maker, fp16);
            EXPECT_EQ(pointwiseLayers(model), 1) << what;
            EXPECT_EQ(layersOfKind(model, LayerType::kELEMENTWISE) + layersOfKind(model, LayerType::kUNARY)
                    + layersOfKind(model, LayerType::kACTIVATION),
                0)
                << what;
            // The GELU fusion made the expansion one activation: the chain is the bias's sum, then GELU.
            for (kiln::plan::LayerRecord const& layer : model.layers)
            {
                if (auto const* chain = kiln::plan::paramsOf<kiln::network::PointwiseParams>(layer))
                {
                    ASSERT_EQ(chain->steps.size(), 2U) << what;
                    EXPECT_EQ(chain->steps[1].kind, LayerType::kACTIVATION) << what;
                    EXPECT_EQ(chain->steps[1].operation, static_cast<int32_t>(activation)) << what;
                }
            }
        }
    }
}

TEST(CudaBackendPointwiseChains, LayerNormsTailIsTwoChainsBetweenItsReductions)
{
    auto const values = std::make_shared<Values>();
    kiln::plan::PlanModel const model = cudaPlanOf(layerNormTail(values, true));
    // variance, add eps and sqrt on the statistics [2, 7, 1]; div, mul gamma and add beta on the normalised x [2, 7,
    // 37]. x - mean is read by pow and div, in different chains, and pow by a reduction: both stay.
    EXPECT_EQ(pointwiseLayers(model), 2);
    EXPECT_EQ(layersOfKind(model, LayerType::kREDUCE), 2);
    // With the variance a mean, it is LayerNorm as ONNX spells it out: one normalization, no chains.
    kiln::plan::PlanModel const averaged = cudaPlanOf(layerNormTail(values, false));
    EXPECT_EQ(pointwiseLayers(averaged), 0);
    EXPECT_EQ(layersOfKind(averaged, kiln::network::kFusedNormalizationLayerType), 1);
}

TEST(CudaBackendPointwiseChains, AChainLongerThanOneProgramIsSplit)
{
    auto const values = std::make_shared<Values>();
    kiln::plan::PlanModel const model = cudaPlanOf(longChain(values, 40));
    EXPECT_EQ(pointwiseLayers(model), 2); // 32 steps and 8
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (auto const* chain = kiln::plan::paramsOf<kiln::network::PointwiseParams>(layer))
        {
            EXPECT_LE(chain->steps.size(), static_cast<size_t>(kiln::cuda::kMaxPointwiseSteps));
        }
    }
}

TEST(CudaBackendPointwiseChains, ActivationsBetweenFp16ConvolutionsStayChannelsLast)
{
    auto const values = std::make_shared<Values>();
    kiln::plan::PlanModel const model = cudaPlanOf(convolutionsWithActivations(values), true,
        [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); });
    ASSERT_EQ(pointwiseLayers(model), 2); // SiLU; HardSwish (its constants broadcast, so they enter as inputs)
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type == kiln::network::kPointwiseLayerType && layer.name.find("silu") != std::string::npos)
        {
            EXPECT_EQ(kiln::plan::slotFormat(model, layer, layer.inputs.size()), TensorFormat::kHWC) << layer.name;
        }
    }
}

TEST(CudaBackendPointwiseChains, FusedChainsAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    auto const values = std::make_shared<Values>();
    for (bool fp16 : {false, true})
    {
        std::string const precision = fp16 ? " fp16" : " fp32";
        expectBackendsAgree(geluAfterBias(values), tokens(), fp16, "gelu" + precision);
        expectBackendsAgree(tanhGeluAfterBias(values), tokens(), fp16, "tanh gelu" + precision);
        expectBackendsAgree(layerNormTail(values, true), tokens(), fp16, "layer norm" + precision);
    }
    // In FP16 the reference rounds after each of the 40 steps and the fused chain once: they part by more than the
    // comparison's FP16 tolerance, which one step's rounding sets.
    expectBackendsAgree(longChain(values, 40), tokens(), false, "long chain fp32");
    std::map<std::string, HostTensor> const image{{"x", fromFloats({2, 8, 9, 7}, spread(2 * 8 * 9 * 7, -4.0F, 4.0F))}};
    expectBackendsAgree(convolutionsWithActivations(values), image, false, "silu and hard swish fp32");
    expectBackendsAgree(convolutionsWithActivations(values), image, true, "silu and hard swish fp16 channels-last",
        [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); });
}

TEST(CudaBackendPointwiseChains, QdqPairsOfAResidualSumAreSteps)
{
    auto const values = std::make_shared<Values>();
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        for (bool fp16 : {false, true})
        {
            std::string const what = kindOf(type, fp16);
            kiln::plan::PlanModel const model = cudaPlanOf(residualThroughQuantization(values, type), fp16);
            // One layer: both pairs, the sum and the ReLU; the pairs' scale constants went with them.
            ASSERT_EQ(model.layers.size(), 1U) << what;
            auto const* chain = kiln::plan::paramsOf<kiln::network::PointwiseParams>(model.layers[0]);
            ASSERT_NE(chain, nullptr) << what;
            ASSERT_EQ(chain->steps.size(), 4U) << what;
            float const range = type == DataType::kFP8 ? 448.0F : 127.0F;
            DataType const valueType = fp16 ? DataType::kHALF : DataType::kFLOAT;
            for (auto [step, scale] : {std::pair{0, 3.0F / range}, std::pair{2, 5.0F / range}})
            {
                kiln::network::PointwiseStep const& pair = chain->steps[static_cast<size_t>(step)];
                EXPECT_EQ(pair.kind, LayerType::kQUANTIZE) << what << ", step " << step;
                EXPECT_EQ(pair.operation, static_cast<int32_t>(type)) << what << ", step " << step;
                EXPECT_FLOAT_EQ(pair.alpha, scale) << what << ", step " << step;
                EXPECT_EQ(pair.valueType, valueType) << what << ", step " << step;
            }
            EXPECT_EQ(chain->steps[1].kind, LayerType::kELEMENTWISE) << what;
            EXPECT_EQ(chain->steps[3].kind, LayerType::kACTIVATION) << what;
        }
    }
}

TEST(CudaBackendPointwiseChains, ASumThenItsQdqPairIsTwoSteps)
{
    // The one-arithmetic-step kernel runs it (CudaPointwiseProgram.ASumThenAQdqStepIsBinaryAndRounds).
    auto const values = std::make_shared<Values>();
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(sumThroughQuantization(values, type), true);
        ASSERT_EQ(model.layers.size(), 1U) << kindOf(type, true);
        auto const* chain = kiln::plan::paramsOf<kiln::network::PointwiseParams>(model.layers[0]);
        ASSERT_NE(chain, nullptr) << kindOf(type, true);
        ASSERT_EQ(chain->steps.size(), 2U) << kindOf(type, true);
        EXPECT_EQ(chain->steps[0].kind, LayerType::kELEMENTWISE);
        EXPECT_EQ(chain->steps[1].kind, LayerType::kQUANTIZE);
    }
}

TEST(CudaBackendPointwiseChains, AQdqPairWhoseCodesOthersReadStays)
{
    auto const values = std::make_shared<Values>();
    NetworkMaker const maker = [values](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kTokens);
        IQuantizeLayer* q
            = network.addQuantize(x, values->constant(network, Dims{}, {0.05F}, "scale"), DataType::kINT8);
        q->setName("Q");
        IDequantizeLayer* dq = network.addDequantize(
            *q->getOutput(0), values->constant(network, Dims{}, {0.05F}, "scale 2"), DataType::kFLOAT);
        dq->setName("DQ");
        output(network, relu(network, *dq->getOutput(0), "relu"), "y");
        output(network, *q->getOutput(0), "codes");
    };
    kiln::plan::PlanModel const model = cudaPlanOf(maker);
    // The codes are an output: the Q stays, and so does the DQ that reads them; the ReLU has no chain to join.
    EXPECT_EQ(pointwiseLayers(model), 0);
    EXPECT_EQ(layersOfKind(model, LayerType::kQUANTIZE), 1);
    EXPECT_EQ(layersOfKind(model, LayerType::kDEQUANTIZE), 1);
}

TEST(CudaBackendPointwiseChains, QdqStepsOnTheCpuReferenceAgreeWithTheUnfusedLayers)
{
    // Exactly: a pair's step rounds the sum to the build's type before it quantizes it, as the Q read it, and its
    // result after, as the DQ wrote it; the ReLU of a rounded value is the rounded ReLU.
    auto const values = std::make_shared<Values>();
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        for (bool fp16 : {false, true})
        {
            std::string const what = kindOf(type, fp16);
            NetworkMaker const maker = residualThroughQuantization(values, type);
            kiln::plan::PlanModel const fused = fusedCpuPlanOf(maker, fp16, [](kiln::plan::PlanModel& model) {
                kiln::plan::fusePointwiseChains(model, kiln::cuda::pointwiseChains());
            });
            ASSERT_EQ(pointwiseLayers(fused), 1) << what;
            auto const unfusedOutputs = runOn(kiln::Backend::kCPU, maker, residualInputs(), fp16);
            auto const fusedOutputs = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(fused), residualInputs());
            std::vector<float> const expected = unfusedOutputs.at("y").floats();
            std::vector<float> const actual = fusedOutputs.at("y").floats();
            ASSERT_EQ(actual.size(), expected.size()) << what;
            for (size_t i = 0; i < actual.size(); ++i)
            {
                ASSERT_EQ(actual[i], expected[i]) << what << ", element " << i;
            }
        }
    }
}

TEST(CudaBackendPointwiseChains, QdqStepsAreCheckedWithThePlan)
{
    auto const values = std::make_shared<Values>();
    kiln::plan::PlanModel const model = cudaPlanOf(residualThroughQuantization(values, DataType::kINT8));
    ASSERT_EQ(pointwiseLayers(model), 1);
    auto const damaged = [&](auto&& change) {
        kiln::plan::PlanModel copy = model;
        auto params = std::make_shared<kiln::network::PointwiseParams>(
            *kiln::plan::paramsOf<kiln::network::PointwiseParams>(copy.layers[0]));
        change(params->steps[2]);
        copy.layers[0].params = params;
        std::vector<uint8_t> const bytes = kiln::plan::writePlan(copy);
        kiln::plan::PlanModel read;
        std::string error;
        EXPECT_FALSE(kiln::plan::readPlan(bytes.data(), bytes.size(), read, error));
        return error;
    };
    std::string const why = "a Q -> DQ step needs INT8 or FP8 codes";
    EXPECT_NE(damaged([](auto& step) { step.operation = static_cast<int32_t>(DataType::kINT32); }).find(why),
        std::string::npos);
    EXPECT_NE(damaged([](auto& step) { step.alpha = 0.0F; }).find(why), std::string::npos);
    EXPECT_NE(
        damaged([](auto& step) { step.alpha = std::numeric_limits<float>::infinity(); }).find(why), std::string::npos);
    EXPECT_NE(damaged([](auto& step) { step.valueType = DataType::kINT8; }).find(why), std::string::npos);
}

TEST(CudaBackendPointwiseChains, QdqStepsAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    auto const values = std::make_shared<Values>();
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(residualThroughQuantization(values, type), residualInputs(), fp16, kindOf(type, fp16));
            expectBackendsAgree(
                sumThroughQuantization(values, type), sumInputs(), fp16, "sum alone, " + kindOf(type, fp16));
        }
    }
}

} // namespace
