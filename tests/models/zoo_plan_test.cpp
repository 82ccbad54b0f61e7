// What the CUDA backend's build passes make of real exports, read from their plans without a GPU: the small BERT,
// ConvNeXt, ShuffleNetV2 and PoolFormer of tests/models (transformers', timm's and torchvision's models, exported by
// export_zoo.py) in FP32 and FP16, built at their inputs' shapes. Their outputs are checked against ONNX Runtime's on
// a GPU by zoo_test.cpp; ConvNeXt's with two of the passes also on the CPU reference, here.
#include "collecting_logger.h"
#include "backend/cuda/passes/column_scale_folding.h"
#include "backend/cuda/passes/constant_before_transpose.h"
#include "model_runner.h"
#include "network/fused/attention.h"
#include "network/fused/fused_normalization.h"
#include "network/layers/elementwise.h"
#include "network/layers/loop.h"
#include "network/layers/normalization.h"
#include "npy_file.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

namespace kiln::test
{
namespace
{

//! The CUDA plan of the zoo's model `name`, every input pinned at `shape` (by default [2, 16]: the text models'
//! exports), its FP16 convolutions stored as `layout` says.
plan::PlanModel cudaPlanOfZooModel(std::string const& name, bool fp16, nvinfer1::Dims const& shape = {2, {2, 16}},
    kiln::ConvolutionLayout layout = kiln::ConvolutionLayout::kBY_TIMING)
{
    CollectingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    std::string const path = (std::filesystem::path(KILN_ZOO_DIR) / name / "model.onnx").string();
    EXPECT_TRUE(parser->parseFromFile(path.c_str(), 0)) << logger.text();
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    if (fp16)
    {
        config->setFlag(nvinfer1::BuilderFlag::kFP16);
    }
    kiln::setConvolutionLayout(*config, layout);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(network->getInput(i)->getName(), selector, shape);
        }
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> blob(builder->buildSerializedNetwork(*network, *config));
    plan::PlanModel model;
    std::string error;
    EXPECT_NE(blob, nullptr) << logger.text();
    if (blob != nullptr)
    {
        EXPECT_TRUE(plan::readPlan(blob->data(), blob->size(), model, error)) << error;
    }
    return model;
}

TEST(ZooPlans, BertsProjectionsMergeAndItsAttentionFusesInBothPrecisions)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    constexpr int64_t kEncoderLayers = 2; // the export's configuration: 2 layers, hidden size 32
    constexpr int64_t kHidden = 32;
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16" : "fp32");
        plan::PlanModel const model = cudaPlanOfZooModel("bert", fp16);
        auto const count
            = [&](auto const& predicate) { return std::count_if(model.layers.begin(), model.layers.end(), predicate); };
        // One attention layer per encoder layer, whatever the precision.
        EXPECT_EQ(count([](plan::LayerRecord const& layer) { return layer.type == network::kAttentionLayerType; }),
            kEncoderLayers);
        // Per encoder layer, query, key and value are one product with three bias rows; the attention output,
        // intermediate and output products stay as they are.
        auto const products
            = [](plan::LayerRecord const& layer) { return layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY; };
        auto const merged = [](plan::LayerRecord const& layer) {
            return layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY && layer.epilogue.bias.count() == 3 * kHidden;
        };
        EXPECT_EQ(count(merged), kEncoderLayers);
        EXPECT_EQ(count(products), 4 * kEncoderLayers);
        // The export reshapes each attention's output to its own shape, then transposes the heads next to each
        // other: at shapes the profile pins, the attention writes them so, and no shuffle of the plan moves data.
        auto const moves = [&](plan::LayerRecord const& layer) {
            return layer.type == nvinfer1::LayerType::kSHUFFLE && model.tensors[layer.outputs[0]].viewOf < 0;
        };
        EXPECT_EQ(count(moves), 0);
    }
}

TEST(ZooPlans, TorchvisionVitsAttentionReadsItsHeadsWhereTheyLie)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // torchvision's ViT attends through nn.MultiheadAttention: its export transposes the sequence first, takes the
    // query, keys and values out of the one projection by three Gathers, and moves each one's heads to the front by a
    // transpose before splitting them from the batch. The Gathers are views; each split moves before its transpose
    // (backend/cuda/passes/reshape_before_transpose.h), where it is a view too, and the attention reads the heads
    // through the transposes. The transposes of the sequence in and out fold (backend/cuda/passes/row_transposes.h):
    // the projection reads the batch first and its transpose into query, keys and values moves the sequence first
    // with them; the attention writes its output batch first for the output projection. What moves data in each
    // encoder layer's attention: that one transpose.
    constexpr int64_t kEncoderLayers = 2;
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16" : "fp32");
        plan::PlanModel const model = cudaPlanOfZooModel("vit_torchvision", fp16, {4, {2, 3, 32, 32}});
        size_t attentions = 0;
        std::vector<std::string> moving;
        for (plan::LayerRecord const& layer : model.layers)
        {
            bool const inAttention = layer.name.find("/self_attention/") != std::string::npos;
            if (layer.type == network::kAttentionLayerType)
            {
                ++attentions;
                for (size_t i = 0; i < 3; ++i)
                {
                    EXPECT_GE(model.tensors[static_cast<size_t>(layer.inputs[i])].viewOf, 0)
                        << "operand " << i << " of " << layer.name;
                }
            }
            else if (inAttention && layer.outputs.size() == 1 && !plan::isView(model, layer)
                && (layer.type == nvinfer1::LayerType::kSHUFFLE || layer.type == nvinfer1::LayerType::kGATHER))
            {
                moving.push_back(layer.name.substr(layer.name.find("/self_attention/")));
            }
        }
        EXPECT_EQ(attentions, kEncoderLayers);
        std::vector<std::string> const expected{"/self_attention/Transpose_1", "/self_attention/Transpose_1"};
        EXPECT_EQ(moving, expected);
    }
}

TEST(ZooPlans, TimmsQueryKeysAndValuesAreReadFromTheirProductInPlace)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // timm's DeiT (as its ViT) computes q, k and v as one product, reshapes it to [B, N, 3, H, D], transposes that to
    // [3, B, H, N, D] and splits it (Transpose -> Split -> Squeeze, the export of qkv.unbind(0)). The attention reads
    // the reshaped product in place, each operand one index of axis 2: nothing in an encoder layer's attention moves
    // data, at batch 1 and 2, in FP32 and FP16.
    constexpr size_t kEncoderLayers = 2;
    for (int64_t batch : {1, 2})
    {
        for (bool fp16 : {false, true})
        {
            SCOPED_TRACE(std::string(fp16 ? "fp16" : "fp32") + ", batch " + std::to_string(batch));
            plan::PlanModel const model = cudaPlanOfZooModel("deit", fp16, {4, {batch, 3, 32, 32}});
            size_t attentions = 0;
            for (plan::LayerRecord const& layer : model.layers)
            {
                bool const inAttention = layer.name.find("/attn/") != std::string::npos;
                if (layer.type == network::kAttentionLayerType)
                {
                    ++attentions;
                    auto const* params = plan::paramsOf<network::AttentionParams>(layer);
                    EXPECT_EQ(layer.inputs[0], layer.inputs[1]) << layer.name;
                    EXPECT_EQ(layer.inputs[0], layer.inputs[2]) << layer.name;
                    EXPECT_EQ(model.tensors[static_cast<size_t>(layer.inputs[0])].dims.size(), 5U) << layer.name;
                    EXPECT_EQ(params->queryPick.index, 0);
                    EXPECT_EQ(params->keyPick.index, 1);
                    EXPECT_EQ(params->valuePick.index, 2);
                }
                else if (inAttention && layer.outputs.size() == 1 && !plan::isView(model, layer)
                    && (layer.type == nvinfer1::LayerType::kSHUFFLE || layer.type == nvinfer1::LayerType::kSLICE))
                {
                    ADD_FAILURE() << layer.name << " moves data";
                }
            }
            EXPECT_EQ(attentions, kEncoderLayers);
        }
    }
}

TEST(ZooPlans, ATorchScriptForLoopRunsItsTripCountWithoutReadingACondition)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // TorchScript exports `for step in range(n)` as a Loop whose condition is a constant true, given back by the body
    // through an Identity of that constant. The loop then has only its trip count (known from the input's shape
    // before it runs): no condition to carry, nor a kWHILE limit, whose value the run would read back from the device
    // before each iteration.
    plan::PlanModel const model = cudaPlanOfZooModel("scripted_loop", false, {3, {2, 6, 8}});
    size_t counts = 0;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (auto const* limit = plan::paramsOf<network::TripLimitParams>(layer))
        {
            EXPECT_EQ(limit->kind, nvinfer1::TripLimit::kCOUNT) << layer.name;
            counts += limit->kind == nvinfer1::TripLimit::kCOUNT;
        }
        if (layer.type == nvinfer1::LayerType::kRECURRENCE)
        {
            EXPECT_NE(model.tensors[static_cast<size_t>(layer.outputs.at(0))].type, nvinfer1::DataType::kBOOL)
                << layer.name << " carries a condition";
        }
    }
    EXPECT_EQ(counts, 1U);
}

TEST(ZooPlans, TorchvisionVitsLayerNormsFuseAtBatchOne)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // At batch 1 the class token's expansion folds into a constant whose extents are still the batch's expression;
    // where its values equal a LayerNorm's bias (both zeros as torchvision initializes them), the bias must not be
    // replaced by it (builder/repeated_layers.h), or the normalization no longer sees a row of weights and stays
    // unfused. Each encoder layer's two LayerNorms and the last one fuse, with the residual sums before them.
    constexpr int64_t kLayerNorms = 2 * 2 + 1;
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16" : "fp32");
        plan::PlanModel const model = cudaPlanOfZooModel("vit_torchvision", fp16, {4, {1, 3, 32, 32}});
        auto const count = [&](nvinfer1::LayerType type) {
            return std::count_if(model.layers.begin(), model.layers.end(),
                [&](plan::LayerRecord const& layer) { return layer.type == type; });
        };
        EXPECT_EQ(count(network::kFusedNormalizationLayerType), kLayerNorms);
        EXPECT_EQ(count(nvinfer1::LayerType::kNORMALIZATION), 0);
    }
}

TEST(ZooPlans, ConvNeXtsPermutesMoveNothingInChannelsLastFp16)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // timm's ConvNeXt moves the channels last around each LayerNorm (stem, blocks, downsampling, head) and back,
    // and scales each block's branch per channel after moving them back. In a channels-last FP16 plan each of its
    // 18 transposes is a view (a shuffle that runs would convert or transpose the data), and each scale is folded
    // into the linear layer before it: no layer multiplies by it.
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16, channels last" : "fp32");
        plan::PlanModel const model
            = cudaPlanOfZooModel("convnext", fp16, {4, {1, 3, 64, 64}}, kiln::ConvolutionLayout::kCHANNELS_LAST);
        std::vector<std::string> running;
        size_t shuffles = 0;
        size_t products = 0; // element-wise ones
        for (plan::LayerRecord const& layer : model.layers)
        {
            auto const* elementWise = plan::paramsOf<network::ElementWiseParams>(layer);
            products += elementWise != nullptr && elementWise->operation == nvinfer1::ElementWiseOperation::kPROD;
            if (layer.type == nvinfer1::LayerType::kSHUFFLE && !layer.outputs.empty())
            {
                ++shuffles;
                if (model.tensors[layer.outputs[0]].viewOf < 0)
                {
                    running.push_back(layer.name);
                }
            }
        }
        EXPECT_GE(shuffles, 18U);
        if (fp16)
        {
            EXPECT_TRUE(running.empty()) << running.size() << " shuffles run, the first " << running.front();
            EXPECT_EQ(products, 0U);
        }
        else
        {
            EXPECT_FALSE(running.empty()); // linear throughout: the permutes move elements
        }
    }
}

TEST(ZooPlans, ShuffleNetsChannelShufflesAreGathersInsideItsChannelsLastRegion)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // torchvision's ShuffleNetV2 (the small export: three stages of two units) shuffles each unit's joined channels
    // with a reshape, a transpose and a reshape, and splits them for the next unit with two slices. In the FP16
    // channels-last plan each shuffle is gathers of the join: two where the next unit splits it, one where the next
    // stage's two branches read it whole. Nothing converts but the network's input, read by the stem.
    plan::PlanModel const model
        = cudaPlanOfZooModel("shufflenet_v2", true, {4, {8, 3, 64, 64}}, kiln::ConvolutionLayout::kCHANNELS_LAST);
    auto const count = [&](nvinfer1::LayerType type) {
        return std::count_if(model.layers.begin(), model.layers.end(),
            [type](plan::LayerRecord const& layer) { return layer.type == type; });
    };
    EXPECT_EQ(count(nvinfer1::LayerType::kSHUFFLE), 0);
    EXPECT_EQ(count(nvinfer1::LayerType::kSLICE), 0);
    EXPECT_EQ(count(nvinfer1::LayerType::kGATHER), 9);
    std::vector<std::string> converting;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (!layer.ioFormats.empty())
        {
            converting.push_back(layer.name);
        }
    }
    ASSERT_EQ(converting.size(), 1U) << converting.back();
    EXPECT_EQ(converting.front(), "/conv1/conv1.0/Conv + /conv1/conv1.2/Relu");
}

TEST(ZooPlans, PoolFormersGroupNormalizationsStayInsideItsChannelsLastRegion)
{
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend";
#endif
    // timm's PoolFormer normalizes each block's input with a group normalization of one group, which PyTorch exports
    // as a reshape to [N, 1, C * H * W], an instance normalization and a reshape back. In the FP16 channels-last plan
    // each is one normalization of the 4-D tensor's samples (the small export: four blocks of two), so that nothing
    // converts but the network's input, read by the stem.
    plan::PlanModel const model
        = cudaPlanOfZooModel("poolformer", true, {4, {8, 3, 64, 64}}, kiln::ConvolutionLayout::kCHANNELS_LAST);
    size_t samples = 0;
    std::vector<std::string> converting;
    for (plan::LayerRecord const& layer : model.layers)
    {
        auto const* normalization = plan::paramsOf<network::NormalizationParams>(layer);
        samples += normalization != nullptr && normalization->axes == 0b1110U;
        bool const moves = layer.type == nvinfer1::LayerType::kSHUFFLE && model.tensors[layer.outputs[0]].viewOf < 0;
        EXPECT_FALSE(moves) << layer.name << " moves data"; // the head's are views of its pooled [N, C, 1, 1]
        if (!layer.ioFormats.empty())
        {
            converting.push_back(layer.name);
        }
    }
    EXPECT_EQ(samples, 8U);
    ASSERT_EQ(converting.size(), 1U) << converting.back();
    EXPECT_EQ(converting.front(), "/stem/conv/Conv");
}

TEST(ZooPlans, ConvNeXtWithItsScalesMovedAndFoldedMatchesOnnxRuntimeOnTheCpu)
{
    // The two rewrites that take ConvNeXt's layer scales into its linear layers on the CUDA backend, tried on the
    // CPU reference (which runs neither itself) against ONNX Runtime's outputs for the export: the scales' values are
    // the export's, some constants shared between blocks (equal biases), so the folds scale copies of their own.
#ifndef KILN_WITH_CUDA_BACKEND
    GTEST_SKIP() << "Kiln was built without its CUDA backend, whose passes these are";
#else
    std::filesystem::path const folder = std::filesystem::path(KILN_ZOO_DIR) / "convnext";
    size_t moved = 0;
    size_t folded = 0;
    ModelRun const run = runOnnxModel((folder / "model.onnx").string(), {readNpy((folder / "input_0.npy").string())},
        kiln::Backend::kCPU, [&](plan::PlanModel& model) {
            moved = kiln::cuda::moveConstantOperationsBeforeTransposes(model);
            folded = kiln::cuda::foldColumnScalesIntoProducts(model);
        });
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(moved, 4U); // one scale per block, four blocks
    EXPECT_EQ(folded, 4U);
    HostTensor const expected = readNpy((folder / "expected_0.npy").string());
    ASSERT_EQ(run.outputs.size(), 1U);
    ASSERT_EQ(run.outputs[0].shape, expected.shape);
    std::vector<float> const actual = run.outputs[0].floats();
    std::vector<float> const reference = expected.floats();
    float largest = 0.0F;
    for (float value : reference)
    {
        largest = std::max(largest, std::fabs(value));
    }
    for (size_t i = 0; i < reference.size(); ++i)
    {
        EXPECT_NEAR(actual[i], reference[i], 1e-4F * largest) << "logit " << i;
    }
#endif
}

} // namespace
} // namespace kiln::test
