// The builder's choice between cuDNN's fused attention and Kiln's kernel (backend/cuda/passes/attention_tuning.h)
// without a GPU, through a stand-in timer: the choice it times lands in the plan and names the layer's tactic,
// attention of the same shapes is timed once, the timing cache answers a later build, and layers cuDNN never runs
// (masked, FP32), layers that cannot be timed and damaged cache entries keep the rule by key count. The timer itself,
// and the choices run, are on the GPU in cudnn_attention_test.cpp.
#include "backend/cuda/passes/attention_tuning.h"
#include "backend/cuda/tactic_names.h"
#include "backend/timing_cache.h"
#include "backend_comparison.h"
#include "network/fused/attention.h"
#include "plan/plan_graph.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::AlgorithmChoice;
using Op = MatrixOperation;

//! Answers `answer` in 0.5 ms, counting the layers it is asked to time; throws where `fails`.
class StandInTimer final : public kiln::cuda::AttentionAlgorithmTimer
{
public:
    Result fastest(kiln::network::AttentionParams const&, kiln::cuda::AttentionOperandShapes const& shapes) override
    {
        timed.push_back(shapes);
        if (fails)
        {
            throw std::runtime_error("no GPU memory for the operands");
        }
        return Result{answer, 0.5F};
    }
    AlgorithmChoice answer = AlgorithmChoice::graphEngine(0);
    bool fails{false};
    std::vector<kiln::cuda::AttentionOperandShapes> timed;
};

//! softmax(q k^T / 8) v over [1, 2, 96, 64] operands named after `prefix`, with an additive mask input where `masked`.
void addAttention(INetworkDefinition& network, std::string const& prefix, bool masked)
{
    Dims const operand{4, {1, 2, 96, 64}};
    ITensor* q = network.addInput((prefix + "q").c_str(), DataType::kFLOAT, operand);
    ITensor* k = network.addInput((prefix + "k").c_str(), DataType::kFLOAT, operand);
    ITensor* v = network.addInput((prefix + "v").c_str(), DataType::kFLOAT, operand);
    static float const kScale = 0.125F;
    ITensor* scale = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, &kScale, 1})->getOutput(0);
    ITensor* scaled = network.addElementWise(*q, *scale, ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* scores = network.addMatrixMultiply(*scaled, Op::kNONE, *k, Op::kTRANSPOSE)->getOutput(0);
    if (masked)
    {
        ITensor* mask = network.addInput((prefix + "mask").c_str(), DataType::kFLOAT, Dims{4, {1, 1, 1, 96}});
        scores = network.addElementWise(*scores, *mask, ElementWiseOperation::kSUM)->getOutput(0);
    }
    ISoftMaxLayer* softmax = network.addSoftMax(*scores);
    softmax->setAxes(1U << 3);
    IMatrixMultiplyLayer* output = network.addMatrixMultiply(*softmax->getOutput(0), Op::kNONE, *v, Op::kNONE);
    output->getOutput(0)->setName((prefix + "out").c_str());
    network.markOutput(*output->getOutput(0));
}

//! Two unmasked attentions of the same shapes ("a", "b") and a masked one ("m").
void threeAttentions(INetworkDefinition& network)
{
    addAttention(network, "a", false);
    addAttention(network, "b", false);
    addAttention(network, "m", true);
}

std::vector<kiln::plan::LayerRecord const*> attentionsOf(kiln::plan::PlanModel const& model)
{
    return layersOfType(model, kiln::network::kAttentionLayerType);
}

bool masked(kiln::plan::LayerRecord const& attention)
{
    return attention.inputs.size() > 3 && attention.inputs[3] >= 0;
}

//! Tunes `model`'s attention as the CUDA backend does, every tensor being the network's.
bool tune(kiln::plan::PlanModel& model, kiln::cuda::AttentionTuning const& tuning, std::string& error)
{
    return kiln::cuda::tuneAttention(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); },
        static_cast<int32_t>(model.tensors.size()), tuning, error);
}

TEST(CudaAttentionTuning, TheTimedChoiceLandsInThePlanAndAttentionOfOneShapeIsTimedOnce)
{
    for (AlgorithmChoice const answer : {AlgorithmChoice::graphEngine(0), AlgorithmChoice::kilnKernel()})
    {
        kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, true);
        ASSERT_EQ(attentionsOf(model).size(), 3U);
        kiln::backend::TimingCache cache("stand-in GPU");
        StandInTimer timer;
        timer.answer = answer;
        std::string error;
        ASSERT_TRUE(tune(model, kiln::cuda::AttentionTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
        ASSERT_EQ(timer.timed.size(), 1U); // "a" and "b" share one timing; "m" has a mask, which cuDNN never runs
        EXPECT_EQ(timer.timed[0][0], (kiln::Shape{1, 2, 96, 64}));
        EXPECT_EQ(timer.timed[0][3], (kiln::Shape{1, 2, 96, 64}));
        for (kiln::plan::LayerRecord const* attention : attentionsOf(model))
        {
            AlgorithmChoice const expected = masked(*attention) ? AlgorithmChoice{} : answer;
            EXPECT_EQ(AlgorithmChoice::decode(attention->backendChoice), expected) << attention->name;
        }

        // A later build with the cache and no GPU takes the cached choice.
        kiln::plan::PlanModel rebuilt = cudaPlanOf(threeAttentions, true);
        ASSERT_TRUE(tune(rebuilt, kiln::cuda::AttentionTuning{cache, nullptr, "stand-in GPU", true}, error)) << error;
        for (kiln::plan::LayerRecord const* attention : attentionsOf(rebuilt))
        {
            AlgorithmChoice const expected = masked(*attention) ? AlgorithmChoice{} : answer;
            EXPECT_EQ(AlgorithmChoice::decode(attention->backendChoice), expected) << attention->name;
        }
    }
}

TEST(CudaAttentionTuning, EachChoiceNamesTheLayersTactic)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, true);
    kiln::plan::LayerRecord attention = *attentionsOf(model).at(0);
    attention.backendChoice.clear(); // untimed (a build on a GPU has timed it)
    EXPECT_NE(kiln::cuda::tacticName(attention).find("from 256 keys"), std::string::npos)
        << kiln::cuda::tacticName(attention);
    attention.backendChoice = AlgorithmChoice::graphEngine(0).encode();
    EXPECT_EQ(kiln::cuda::tacticName(attention).rfind("cuDNN's fused attention where it takes the shape", 0), 0U)
        << kiln::cuda::tacticName(attention);
    attention.backendChoice = AlgorithmChoice::kilnKernel().encode();
    EXPECT_EQ(kiln::cuda::tacticName(attention), "Kiln's attention kernel");

    // Attention cuDNN never runs (FP32, masked) names Kiln's kernel whatever the plan holds.
    for (bool const fp16 : {false, true})
    {
        kiln::plan::PlanModel const plan = cudaPlanOf(threeAttentions, fp16);
        for (kiln::plan::LayerRecord const* other : attentionsOf(plan))
        {
            if (fp16 && !masked(*other))
            {
                continue;
            }
            kiln::plan::LayerRecord named = *other;
            named.backendChoice = AlgorithmChoice::graphEngine(0).encode();
            EXPECT_EQ(kiln::cuda::tacticName(named), "Kiln's attention kernel")
                << other->name << (fp16 ? ", FP16" : "");
        }
    }
}

TEST(CudaAttentionTuning, Fp32AttentionIsNotTimed)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, false);
    ASSERT_EQ(attentionsOf(model).size(), 3U);
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    std::string error;
    ASSERT_TRUE(tune(model, kiln::cuda::AttentionTuning{cache, &timer, "stand-in GPU", true}, error)) << error;
    EXPECT_TRUE(timer.timed.empty());
    for (kiln::plan::LayerRecord const* attention : attentionsOf(model))
    {
        EXPECT_TRUE(attention->backendChoice.empty()) << attention->name;
    }
}

TEST(CudaAttentionTuning, ACacheMissUnderErrorOnCacheMissNamesTheLayer)
{
    kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, true);
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    std::string error;
    EXPECT_FALSE(tune(model, kiln::cuda::AttentionTuning{cache, &timer, "stand-in GPU", true}, error));
    EXPECT_NE(error.find("layer \"" + attentionsOf(model).at(0)->name + "\""), std::string::npos) << error;
    EXPECT_NE(error.find("kERROR_ON_TIMING_CACHE_MISS"), std::string::npos) << error;
    EXPECT_TRUE(timer.timed.empty());
}

TEST(CudaAttentionTuning, WhatCannotBeTimedKeepsTheRuleByKeyCount)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    std::string error;
    // A timer that fails: the build goes on, nothing chosen and nothing cached.
    kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, true);
    StandInTimer failing;
    failing.fails = true;
    ASSERT_TRUE(tune(model, kiln::cuda::AttentionTuning{cache, &failing, "stand-in GPU", false}, error)) << error;
    EXPECT_EQ(failing.timed.size(), 2U); // a failure is not cached: "a" and "b" each ask
    for (kiln::plan::LayerRecord const* attention : attentionsOf(model))
    {
        EXPECT_TRUE(attention->backendChoice.empty()) << attention->name;
    }
    EXPECT_EQ(cache.queryKeys(nullptr, 0), 0);

    // A cached tactic that is no attention's choice (a convolution's algorithm): the rule, not that tactic.
    StandInTimer convolutionLike;
    convolutionLike.answer = AlgorithmChoice::perCall(1);
    kiln::plan::PlanModel first = cudaPlanOf(threeAttentions, true);
    ASSERT_TRUE(tune(first, kiln::cuda::AttentionTuning{cache, &convolutionLike, "stand-in GPU", false}, error))
        << error;
    kiln::plan::PlanModel damaged = cudaPlanOf(threeAttentions, true);
    ASSERT_TRUE(tune(damaged, kiln::cuda::AttentionTuning{cache, nullptr, "stand-in GPU", true}, error)) << error;
    for (kiln::plan::LayerRecord const* attention : attentionsOf(damaged))
    {
        EXPECT_TRUE(attention->backendChoice.empty()) << attention->name;
    }

    // Attention reading tensors past the network's (as a pass adds them) is not timed: the builder has no shape
    // for those.
    kiln::plan::PlanModel added = cudaPlanOf(threeAttentions, true);
    StandInTimer timer;
    ASSERT_TRUE(kiln::cuda::tuneAttention(
        added, [&](int32_t t) { return kiln::plan::constantDims(added, t).value(); }, 0,
        kiln::cuda::AttentionTuning{cache, &timer, "stand-in GPU", false}, error))
        << error;
    EXPECT_TRUE(timer.timed.empty());
}

TEST(CudaAttentionTuning, OnAGpuTheBuildTimesFp16AttentionAndEitherChoiceAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    kiln::plan::PlanModel timed = cudaPlanOf(threeAttentions, true);
    ASSERT_EQ(attentionsOf(timed).size(), 3U);
    for (kiln::plan::LayerRecord const* attention : attentionsOf(timed))
    {
        AlgorithmChoice const choice = AlgorithmChoice::decode(attention->backendChoice);
        if (masked(*attention))
        {
            EXPECT_EQ(choice, AlgorithmChoice{}) << attention->name;
        }
        else
        {
            EXPECT_TRUE(choice == AlgorithmChoice::graphEngine(0) || choice == AlgorithmChoice::kilnKernel())
                << attention->name << ": the build on a GPU must time it";
        }
    }
    std::map<std::string, HostTensor> inputs;
    size_t const count = 2 * 96 * 64;
    for (char const* prefix : {"a", "b", "m"})
    {
        inputs[std::string(prefix) + "q"] = fromFloats({1, 2, 96, 64}, spread(count, -2.0F, 2.0F));
        inputs[std::string(prefix) + "k"] = fromFloats({1, 2, 96, 64}, spread(count, 1.5F, -1.5F));
        inputs[std::string(prefix) + "v"] = fromFloats({1, 2, 96, 64}, spread(count, -1.0F, 3.0F));
    }
    inputs["mmask"] = fromFloats({1, 1, 1, 96}, spread(96, -4.0F, 0.0F));
    auto const expected = runOn(kiln::Backend::kCPU, threeAttentions, inputs, true);
    // Each choice, as a plan may hold it whichever the GPU timed faster (cuDNN's then runs 96 keys, which the rule
    // by key count leaves to Kiln's kernel).
    for (AlgorithmChoice const answer : {AlgorithmChoice::graphEngine(0), AlgorithmChoice::kilnKernel()})
    {
        kiln::plan::PlanModel model = cudaPlanOf(threeAttentions, true);
        kiln::backend::TimingCache cache("stand-in GPU");
        StandInTimer timer;
        timer.answer = answer;
        std::string error;
        ASSERT_TRUE(tune(model, kiln::cuda::AttentionTuning{cache, &timer, "stand-in GPU", false}, error)) << error;
        auto const outputs = runPlan(kiln::Backend::kCUDA, kiln::plan::writePlan(model), inputs);
        for (char const* output : {"aout", "bout", "mout"})
        {
            ASSERT_EQ(outputs.count(output), 1U) << output;
            expectClose(outputs.at(output).floats(), expected.at(output).floats(), Tolerance{4e-3, 4e-3},
                kiln::cuda::tacticName(*attentionsOf(model).at(0)) + ", output " + output);
        }
    }
}

} // namespace
