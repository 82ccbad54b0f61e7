// INetworkDefinition::addAttention's layers are the form the CUDA backend's attention fusion recognises: an FP16 plan
// of each kind of attention (plain, causal, BOOL and additive masks, grouped-query heads), read back and passed
// through plan::fuseAttention as the CUDA backend runs it, holds one fused attention layer and none of the products
// or SoftMax it replaced. Without a GPU: the CPU reference plan carries the same layers the CUDA builder starts from.
// The values are checked on the CPU backend in tests/dialects/attention_api_test.cpp.
#include "test_logger.h"

#include "plan/passes/attention_fusion.h"
#include "network/fused/attention.h"
#include "plan/plan_format.h"

#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <NvInfer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace
{

using namespace nvinfer1;
using kiln::plan::PlanModel;

struct Case
{
    std::string what;
    int64_t queryHeads{2};
    int64_t keyHeads{2};
    bool causal{false};
    DataType maskType{DataType::kFLOAT};
    bool mask{false};
};

//! The FP16 plan (CPU reference kernels) of one attention over q [2, Hq, 8, 16], k and v [2, Hkv, 8, 16], read back.
PlanModel planOf(Case const& c)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* q = network->addInput("q", DataType::kHALF, Dims{4, {2, c.queryHeads, 8, 16}});
    ITensor* k = network->addInput("k", DataType::kHALF, Dims{4, {2, c.keyHeads, 8, 16}});
    ITensor* v = network->addInput("v", DataType::kHALF, Dims{4, {2, c.keyHeads, 8, 16}});
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, c.causal);
    EXPECT_NE(attention, nullptr) << logger.errors();
    if (attention == nullptr)
    {
        return {};
    }
    if (c.mask)
    {
        DataType const type = c.maskType == DataType::kBOOL ? DataType::kBOOL : DataType::kHALF;
        ITensor* mask = network->addInput("mask", type, Dims{4, {2, 1, 8, 8}});
        EXPECT_TRUE(attention->setMask(*mask)) << logger.errors();
    }
    attention->getOutput(0)->setName("y");
    network->markOutput(*attention->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
    config->setFlag(BuilderFlag::kFP16);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    PlanModel model;
    std::string error;
    if (plan != nullptr)
    {
        EXPECT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    }
    return model;
}

int64_t layersOfKind(PlanModel const& model, LayerType type)
{
    return std::count_if(model.layers.begin(), model.layers.end(),
        [type](kiln::plan::LayerRecord const& layer) { return layer.type == type; });
}

TEST(AttentionDecomposition, EveryKindFusesIntoOneAttentionLayer)
{
    Case const cases[] = {
        {"plain"},
        {"causal", 2, 2, true},
        {"additive mask", 2, 2, false, DataType::kHALF, true},
        {"BOOL mask", 2, 2, false, DataType::kBOOL, true},
        {"grouped-query, causal", 4, 2, true},
    };
    // The rules of the CUDA backend's kernel: HALF, depths it runs (16 here).
    kiln::plan::AttentionFusionRules const rules{[](DataType type, int64_t depth, int64_t valueDepth, bool) {
        return type == DataType::kHALF && depth == 16 && valueDepth == 16;
    }};
    for (Case const& c : cases)
    {
        PlanModel model = planOf(c);
        ASSERT_EQ(layersOfKind(model, LayerType::kMATRIX_MULTIPLY), 2) << c.what;
        ASSERT_EQ(layersOfKind(model, LayerType::kSOFTMAX), 1) << c.what;
        kiln::plan::fuseAttention(model, rules);
        EXPECT_EQ(layersOfKind(model, kiln::network::kAttentionLayerType), 1) << c.what;
        EXPECT_EQ(layersOfKind(model, LayerType::kMATRIX_MULTIPLY), 0) << c.what;
        EXPECT_EQ(layersOfKind(model, LayerType::kSOFTMAX), 0) << c.what;
    }
}

} // namespace
