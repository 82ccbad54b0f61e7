// Model Optimizer's quantized exports of the zoo's models (tests/models/quantized/<name>_<mode>/, written by
// quantize_with_modelopt.py: Q/DQ models in INT8 and FP8 with ONNX Runtime's outputs) through Kiln's parser, builder
// and runtime on each backend.
//
// Tolerance: max|diff| / max|ref| <= 1e-3, the zoo's. Kiln computes Q/DQ exactly as ONNX defines them, so the two
// agree to about 1e-7 here; only the floating-point layers between the pairs sum in another order, and an input to
// a quantize layer that lands within that rounding of a rounding boundary may then take the neighbouring step, which
// moves an output by a small part of one step (another machine's vector width could do it). On the CPU backend the
// INT8 models' convolutions run fused on INT8 (plan/passes/quantized_fusion.h: oneDNN sums the INT8 products exactly
// and scales the sums in FP32), which rounds the sums differently again, by the same few FP32 roundings: the outputs
// still agree to about 2e-7. On CUDA the convolutions and the products by weights run fused on INT8 as well (cuBLASLt's
// exact INT32 sums, scaled in FP32), with the same few roundings. Quantization itself
// moves these outputs by 6e-3 (regnet) to 7e-2 (vit) from the FP32 models', so 1e-3 still tells a wrong scale, axis
// or type; the rounding at exact ties is checked by the layer tests (tests/layers/quantize_test.cpp).
#include "collecting_logger.h"
#include "backend/cpu/fast/fast_path.h"
#include "model_runner.h"
#include "network/fused/attention.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/quantized_convolution.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "npy_file.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "zoo_files.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::test
{
namespace
{

namespace fs = std::filesystem;

fs::path const kQuantizedDirectory = fs::path(KILN_ZOO_DIR) / "quantized";
constexpr double kTolerance = 1e-3;

std::vector<std::string> quantizedModels()
{
    return modelFoldersIn(kQuantizedDirectory);
}

struct QuantizedCase
{
    std::string model;
    kiln::Backend backend;
};

void PrintTo(QuantizedCase const& quantizedCase, std::ostream* out)
{
    *out << quantizedCase.model << " on " << kiln::backendName(quantizedCase.backend);
}

class QuantizedModels : public ::testing::TestWithParam<QuantizedCase>
{
};

TEST_P(QuantizedModels, MatchOnnxRuntime)
{
    fs::path const folder = kQuantizedDirectory / GetParam().model;
    ModelRun const run
        = runOnnxModel((folder / "model.onnx").string(), readArrays(folder, "input"), GetParam().backend);
    if (run.skipped)
    {
        GTEST_SKIP() << run.error;
    }
    ASSERT_EQ(run.error, "");
    expectOutputsWithin(run.outputs, readArrays(folder, "expected"), kTolerance);
}

std::vector<QuantizedCase> quantizedCases()
{
    std::vector<QuantizedCase> cases;
    for (std::string const& model : quantizedModels())
    {
        cases.push_back({model, kiln::Backend::kCPU});
        cases.push_back({model, kiln::Backend::kCUDA});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Exports, QuantizedModels, ::testing::ValuesIn(quantizedCases()),
    [](::testing::TestParamInfo<QuantizedCase> const& testInfo) {
        return testInfo.param.model + "_" + kiln::backendName(testInfo.param.backend);
    });

//! The `backend` plan of quantized model `name`, built for its test input's shape (with kFP16 where `fp16`).
plan::PlanModel planOf(std::string const& name, kiln::Backend backend, bool fp16 = false)
{
    CollectingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    EXPECT_TRUE(parser->parseFromFile((kQuantizedDirectory / name / "model.onnx").string().c_str(), 0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    if (fp16)
    {
        config->setFlag(nvinfer1::BuilderFlag::kFP16);
        config->setFlag(nvinfer1::BuilderFlag::kINT8);
    }
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    std::vector<HostTensor> const inputs = readArrays(kQuantizedDirectory / name, "input");
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        nvinfer1::Dims dims{static_cast<int32_t>(inputs[i].shape.size()), {}};
        std::copy(inputs[i].shape.begin(), inputs[i].shape.end(), dims.d);
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(network->getInput(static_cast<int32_t>(i))->getName(), selector, dims);
        }
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> blob(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(blob, nullptr) << logger.text();
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(blob == nullptr || plan::readPlan(blob->data(), blob->size(), model, error)) << error;
    return model;
}

//! The layer types of the `backend` plan of quantized model `name`.
std::vector<nvinfer1::LayerType> planLayerTypes(std::string const& name, kiln::Backend backend)
{
    std::vector<nvinfer1::LayerType> types;
    for (plan::LayerRecord const& layer : planOf(name, backend).layers)
    {
        types.push_back(layer.type);
    }
    return types;
}

//! How many layers of `model` are of `type` and write `written` (their first output's type).
size_t layersWriting(plan::PlanModel const& model, nvinfer1::LayerType type, nvinfer1::DataType written)
{
    return static_cast<size_t>(std::count_if(model.layers.begin(), model.layers.end(), [&](plan::LayerRecord const& l) {
        return l.type == type && !l.outputs.empty() && plan::slotType(model, l, l.inputs.size()) == written;
    }));
}

//! The CPU plan tests count what the fast path's passes make; a build without oneDNN has no fast path, and its CPU
//! plans run every layer as written on the reference kernels.
#define SKIP_WITHOUT_FAST_PATH()                                                                                       \
    if (!cpu::fast::Session::available())                                                                              \
    {                                                                                                                  \
        GTEST_SKIP() << "Kiln was built without the CPU fast path";                                                    \
    }

TEST(QuantizedModels, Int8ConvolutionsRunFusedOnTheCpu)
{
    SKIP_WITHOUT_FAST_PATH();
    // Every convolution that reads a dequantized INT8 tensor: regnet's other convolutions read FP32 tensors (Model
    // Optimizer left them unquantized), efficientnet's are its squeeze-excitation's, which read an average.
    for (auto const& [name, fused] : {std::pair<char const*, size_t>{"regnet_int8", 18}, {"efficientnet_int8", 38}})
    {
        std::vector<nvinfer1::LayerType> const types = planLayerTypes(name, kiln::Backend::kCPU);
        EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedConvolutionLayerType), fused) << name;
    }
}

//! How regnet's CPU plan stores the INT8 tensors between its fused convolutions.
struct Int8Chains
{
    size_t between{0};          //!< INT8 tensors that a fused convolution writes and only fused convolutions read
    size_t channelsLast{0};     //!< of those, stored kHWC
    size_t writtenOver{0};      //!< fused convolutions whose output takes their residual's bytes
    size_t converted{0};        //!< channels-last outputs of fused convolutions that a layer reads through a conversion
    size_t fastConvolutions{0}; //!< fused convolutions that the fast path runs
};

Int8Chains int8ChainsOf(plan::PlanModel const& model)
{
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    auto const fastConvolution = [&](plan::LayerRecord const& layer) {
        return layer.type == network::kQuantizedConvolutionLayerType && cpu::fast::isMarked(layer);
    };
    Int8Chains chains;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (!fastConvolution(layer))
        {
            continue;
        }
        ++chains.fastConvolutions;
        plan::TensorRecord const& output = model.tensors[layer.outputs[0]];
        auto const& params = *plan::paramsOf<network::QuantizedConvolutionParams>(layer);
        if (params.addsResidual && output.arenaOffset >= 0
            && output.arenaOffset == model.tensors[layer.inputs.back()].arenaOffset)
        {
            ++chains.writtenOver;
        }
        std::vector<size_t> const& read = readers[layer.outputs[0]];
        bool const onlyFused = !read.empty()
            && std::all_of(read.begin(), read.end(), [&](size_t r) { return fastConvolution(model.layers[r]); });
        bool const convertedForSome = std::any_of(read.begin(), read.end(), [&](size_t r) {
            plan::LayerRecord const& reader = model.layers[r];
            return !cpu::fast::isMarked(reader)
                || cpu::fast::channelsLastUse(model, reader) == cpu::fast::ChannelsLastUse::kNO;
        });
        chains.converted += output.format == nvinfer1::TensorFormat::kHWC && convertedForSome ? 1 : 0;
        if (output.type == nvinfer1::DataType::kINT8 && onlyFused)
        {
            ++chains.between;
            chains.channelsLast += output.format == nvinfer1::TensorFormat::kHWC ? 1 : 0;
        }
    }
    return chains;
}

TEST(QuantizedModels, Int8ConvolutionChainsStayChannelsLastOnTheCpu)
{
    // oneDNN's INT8 convolutions read and write channels-last tensors: between two of them nothing converts, and a
    // residual block's sum lies in its shortcut's bytes. An output that a reference layer (a standalone Q or DQ) reads
    // stays row-major, since converting it would cost more than the convolution saves. (Where oneDNN's INT8 products
    // are not exact on the machine, the reference kernels run the fused layers, row-major, and nothing is checked.)
    Int8Chains const chains = int8ChainsOf(planOf("regnet_int8", kiln::Backend::kCPU));
    if (chains.fastConvolutions == 0)
    {
        GTEST_SKIP() << "the CPU fast path does not run INT8 convolutions here";
    }
    EXPECT_GT(chains.between, 5U);
    EXPECT_EQ(chains.channelsLast, chains.between);
    EXPECT_GT(chains.writtenOver, 0U);
    EXPECT_EQ(chains.converted, 0U);
}

TEST(QuantizedModels, Int8ProductsByWeightsRunFusedOnTheCpu)
{
    SKIP_WITHOUT_FAST_PATH();
    // BERT's six projections per layer (query, key, value, attention output, intermediate, output) in its two
    // layers; its two products of activations per layer (attention's) stay FP32 between their pairs.
    std::vector<nvinfer1::LayerType> const types = planLayerTypes("bert_int8", kiln::Backend::kCPU);
    EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedMatrixMultiplyLayerType), 12);
    EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kMATRIX_MULTIPLY), 4);
}

//! BERT's attention moves INT8 through its reshapes and transposes (plan/passes/quantization_propagation.h): the
//! value projection's Q, behind a reshape and a transpose, moves back to the projection, which then writes INT8, and
//! the Q/DQ pair of the attention output's projection moves back before the reshape, transpose and reshape that merge
//! the heads. Without the propagation four of each layer's products wrote FP32, the twenty-one shuffles moved FP32
//! and sixteen Q layers ran. On CUDA the key's scaling by 1/sqrt(depth) moves before its transpose
//! (passes/constant_before_transpose.h), so its Q moves back across it too. On the CPU the query's and the key's
//! scalings move back before their reshape and transpose (the propagation's CPU rules), and their products join the
//! projections' fused layers with the Q after them: all twelve projections write INT8.
struct BertPlan
{
    size_t int8Products;
    size_t floatProducts;
    size_t int8Shuffles;
    size_t quantizations;
    size_t int8Normalizations; //!< on CUDA, normalizations that take the Q after them (passes/normalization_fusion.h)
};

void expectBertMovesInt8ThroughItsShuffles(kiln::Backend backend, BertPlan const& expected)
{
    plan::PlanModel const model = planOf("bert_int8", backend);
    using nvinfer1::DataType;
    using nvinfer1::LayerType;
    EXPECT_EQ(layersWriting(model, network::kQuantizedMatrixMultiplyLayerType, DataType::kINT8), expected.int8Products);
    EXPECT_EQ(
        layersWriting(model, network::kQuantizedMatrixMultiplyLayerType, DataType::kFLOAT), expected.floatProducts);
    EXPECT_EQ(layersWriting(model, LayerType::kSHUFFLE, DataType::kINT8), expected.int8Shuffles);
    EXPECT_EQ(layersWriting(model, LayerType::kQUANTIZE, DataType::kINT8), expected.quantizations);
    EXPECT_EQ(
        layersWriting(model, network::kFusedNormalizationLayerType, DataType::kINT8), expected.int8Normalizations);
}

TEST(QuantizedModels, BertMovesInt8ThroughItsShufflesOnTheCpu)
{
    SKIP_WITHOUT_FAST_PATH();
    expectBertMovesInt8ThroughItsShuffles(kiln::Backend::kCPU, {12, 0, 18, 10, 0});
}

//! With kFP16 (trtexec's --int8 --fp16, --best) the layers between the pairs compute in FP16, and the same chains
//! fuse as in FP32 builds: `fused` convolutions of regnet and efficientnet, and BERT's twelve projections,
//! `int8Writing` of them writing INT8 and the others `floatOutput`.
void expectFp16BuildsFuseAlike(
    kiln::Backend backend, size_t regnet, size_t efficientnet, size_t int8Writing, nvinfer1::DataType floatOutput)
{
    for (auto const& [name, fused] :
        {std::pair<char const*, size_t>{"regnet_int8", regnet}, {"efficientnet_int8", efficientnet}})
    {
        plan::PlanModel const model = planOf(name, backend, true);
        EXPECT_EQ(std::count_if(model.layers.begin(), model.layers.end(),
                      [](plan::LayerRecord const& l) { return l.type == network::kQuantizedConvolutionLayerType; }),
            fused)
            << name;
    }
    plan::PlanModel const bert = planOf("bert_int8", backend, true);
    EXPECT_EQ(layersWriting(bert, network::kQuantizedMatrixMultiplyLayerType, nvinfer1::DataType::kINT8), int8Writing);
    EXPECT_EQ(layersWriting(bert, network::kQuantizedMatrixMultiplyLayerType, floatOutput), 12U - int8Writing);
}

//! How many of `model`'s quantized convolutions apply a self-gated activation, and how many of those write INT8.
std::pair<size_t, size_t> selfGatedConvolutions(plan::PlanModel const& model)
{
    std::pair<size_t, size_t> counts{0, 0};
    for (plan::LayerRecord const& layer : model.layers)
    {
        auto const* params = plan::paramsOf<network::QuantizedConvolutionParams>(layer);
        if (params != nullptr && params->selfGated)
        {
            ++counts.first;
            counts.second += params->outputType() == nvinfer1::DataType::kINT8 ? 1 : 0;
        }
    }
    return counts;
}

TEST(QuantizedModels, SiluFusesIntoEfficientNetsInt8Convolutions)
{
    // EfficientNet's SiLU (a sigmoid and a product, as PyTorch exports it) and the Q that Model Optimizer puts after
    // it join the convolution before it: in the export, 16 convolutions of one group and 8 depthwise ones are
    // followed so. The CPU's fast path fuses all 24; CUDA those of one group (its depthwise convolutions stay FP32
    // between their pairs, and their SiLU a point-wise chain).
    using Counts = std::pair<size_t, size_t>;
    bool checked = false;
    if (cpu::fast::Session::available())
    {
        EXPECT_EQ(selfGatedConvolutions(planOf("efficientnet_int8", kiln::Backend::kCPU)), Counts(24, 24));
        checked = true;
    }
#ifdef KILN_WITH_CUDA_BACKEND
    EXPECT_EQ(selfGatedConvolutions(planOf("efficientnet_int8", kiln::Backend::kCUDA)), Counts(16, 16));
    checked = true;
#endif
    if (!checked)
    {
        GTEST_SKIP() << "Kiln was built without the CPU fast path and without its CUDA backend";
    }
}

//! How many of `model`'s quantized products by weights took a layer whose name contains `part`.
size_t productsTaking(plan::PlanModel const& model, std::string const& part)
{
    return static_cast<size_t>(std::count_if(model.layers.begin(), model.layers.end(), [&](plan::LayerRecord const& l) {
        return l.type == network::kQuantizedMatrixMultiplyLayerType && l.name.find(part) != std::string::npos;
    }));
}

TEST(QuantizedModels, WhispersQueryScalingJoinsItsProjection)
{
    // Whisper's attention scales its queries right after their projection (q_proj, its bias, then a product by
    // head_dim^-1/2): in Model Optimizer's INT8 export the product by that constant joins the fused INT8 layer of
    // each of its two blocks, on both backends (plans build without a GPU).
    bool checked = false;
    if (cpu::fast::Session::available())
    {
        EXPECT_EQ(productsTaking(planOf("whisper_encoder_int8", kiln::Backend::kCPU), "self_attn/Mul "), 2U);
        checked = true;
    }
#ifdef KILN_WITH_CUDA_BACKEND
    EXPECT_EQ(productsTaking(planOf("whisper_encoder_int8", kiln::Backend::kCUDA), "self_attn/Mul "), 2U);
    checked = true;
#endif
    if (!checked)
    {
        GTEST_SKIP() << "Kiln was built without the CPU fast path and without its CUDA backend";
    }
}

TEST(QuantizedModels, Fp16BuildsFuseAsFp32OnesOnTheCpu)
{
    SKIP_WITHOUT_FAST_PATH();
    expectFp16BuildsFuseAlike(kiln::Backend::kCPU, 18, 38, 12, nvinfer1::DataType::kFLOAT);
}

TEST(QuantizedModels, Int8ConvolutionsOfOneGroupRunFusedOnCuda)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // The CUDA kernel takes convolutions of one group (plans build without a GPU): of the CPU's fused convolutions,
    // regnet's grouped 3x3 ones and efficientnet's depthwise ones stay convolutions between their Q/DQ layers.
    for (auto const& [name, fused, convolutions] :
        {std::tuple<char const*, size_t, size_t>{"regnet_int8", 15, 9}, {"efficientnet_int8", 30, 11}})
    {
        std::vector<nvinfer1::LayerType> const types = planLayerTypes(name, kiln::Backend::kCUDA);
        EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedConvolutionLayerType), fused) << name;
        EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kCONVOLUTION), convolutions) << name;
    }
}

TEST(QuantizedModels, Int8ProductsByWeightsRunFusedOnCuda)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // As on the CPU: BERT's twelve projections run on INT8 (the CUDA kernel takes every one the pass makes); its
    // four products of activations stay FP32 between their pairs.
    std::vector<nvinfer1::LayerType> const types = planLayerTypes("bert_int8", kiln::Backend::kCUDA);
    EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedMatrixMultiplyLayerType), 12);
    EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kMATRIX_MULTIPLY), 4);
}

TEST(QuantizedModels, Fp8ProductsByWeightsRunFusedOnCuda)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // ViT's four projections per block (qkv, attention output, the two MLP products) in its two blocks run on
    // cuBLASLt's FP8 kernels (K and N are multiples of 16); its two products of activations per block (attention's)
    // stay between their Q/DQ layers, and the head (never quantized) stays an FP32 product.
    std::vector<nvinfer1::LayerType> const types = planLayerTypes("vit_fp8", kiln::Backend::kCUDA);
    EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedMatrixMultiplyLayerType), 8);
    EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kMATRIX_MULTIPLY), 5);
    // So in FP16 builds (trtexec's --fp8 --fp16): the builder holds the FP8 weights in FP16, which Model Optimizer's
    // scales round off FP8's grid, and the fusion finds the FP8 values again. The layers that write no FP8 write FP16
    // there, FP32 in FP32 builds.
    using nvinfer1::DataType;
    plan::PlanModel const fp32 = planOf("vit_fp8", kiln::Backend::kCUDA);
    plan::PlanModel const fp16 = planOf("vit_fp8", kiln::Backend::kCUDA, true);
    EXPECT_EQ(layersWriting(fp32, network::kQuantizedMatrixMultiplyLayerType, DataType::kFP8), 5U);
    EXPECT_EQ(layersWriting(fp32, network::kQuantizedMatrixMultiplyLayerType, DataType::kFLOAT), 3U);
    EXPECT_EQ(layersWriting(fp16, network::kQuantizedMatrixMultiplyLayerType, DataType::kFP8), 5U);
    EXPECT_EQ(layersWriting(fp16, network::kQuantizedMatrixMultiplyLayerType, DataType::kHALF), 3U);
    // In FP16 builds each block's attention fuses, its query, keys, values and probabilities rounded onto FP8's grid
    // as their Q -> DQ pairs round them (the query after its scaling); FP32 builds keep those layers.
    size_t quantizedAttentions = 0;
    for (plan::LayerRecord const& layer : fp16.layers)
    {
        auto const* params = plan::paramsOf<network::AttentionParams>(layer);
        bool const fp8 = params != nullptr && params->queryRounding.type == DataType::kFP8
            && params->keysRounding.type == DataType::kFP8 && params->valuesRounding.type == DataType::kFP8
            && params->probabilitiesRounding.type == DataType::kFP8 && !params->scoresRounding.rounds()
            && params->queryRounding.factor != 1.0F;
        quantizedAttentions += fp8 ? 1 : 0;
    }
    EXPECT_EQ(quantizedAttentions, 2U);
    EXPECT_EQ(std::count(types.begin(), types.end(), network::kAttentionLayerType), 0);
}

TEST(QuantizedModels, Fp8ProductsStayUnfusedOnTheCpu)
{
    // The CPU backend has no FP8 arithmetic: its FP8 layers compute as written, the reference of the CUDA kernels.
    std::vector<nvinfer1::LayerType> const types = planLayerTypes("vit_fp8", kiln::Backend::kCPU);
    EXPECT_EQ(std::count(types.begin(), types.end(), network::kQuantizedMatrixMultiplyLayerType), 0);
}

TEST(QuantizedModels, BertMovesInt8ThroughItsShufflesOnCuda)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // Four of the ten Qs of FP32 builds end pairs that join point-wise chains (plan/passes/pointwise_fusion.h): each
    // layer's attention scores, Q -> DQ -> + mask, and its probabilities after the Where, Q -> DQ, before the FP32
    // products that read them.
    expectBertMovesInt8ThroughItsShuffles(kiln::Backend::kCUDA, {8, 4, 14, 6, 4});
}

TEST(QuantizedModels, Fp16BuildsFuseAsFp32OnesOnCuda)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // In FP16 builds the fused attention takes the values' Q -> DQ pair as a rounding of what it reads
    // (network/fused/attention.h), so each block's value projection writes floating point where FP32 builds, whose
    // attention stays unfused, have it write INT8: 6 of 12 write INT8, against 8 in FP32 builds. The others write
    // FP16, as the layers after them compute.
    expectFp16BuildsFuseAlike(kiln::Backend::kCUDA, 15, 30, 6, nvinfer1::DataType::kHALF);
}

TEST(QuantizedModels, CoverInt8AndFp8)
{
    std::vector<std::string> const models = quantizedModels();
    EXPECT_NE(std::find(models.begin(), models.end(), "efficientnet_int8"), models.end());
    EXPECT_NE(std::find(models.begin(), models.end(), "vit_fp8"), models.end());
}

} // namespace
} // namespace kiln::test
