// Plans whose records are each valid alone but do not fit together, written again with a valid checksum
// (plan::writePlan) as a hostile or hand-edited plan is: an I/O tensor listed twice, a layer reading a tensor nothing
// writes, profiles outside their inputs' shapes, a tensor left without memory (or planned to hold no element that
// then holds some), a plugin given types it never agreed to, a plugin layer with an absent input, a plugin output
// aliased to an input it lacks. The plan fuzzer found most of these crashing the CPU backend (a kernel handed a null
// address, a plugin writing FP32 elements into a BF16 tensor). Each must be refused with an error that names what is
// wrong.
#include "../layers/layer_harness.h"
#include "network/plugin_layer.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "positive_select_plugin.h"
#include "test_logger.h"

#include <NvInfer.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::plan::PlanModel;

PlanModel modelOf(IHostMemory const& plan)
{
    PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(plan.data(), plan.size(), model, error)) << error;
    return model;
}

//! a [2, 3] and b [2, 3] -> a + b -> softmax -> y, on the CPU backend: two layers that no pass fuses.
PlanModel sumPlan()
{
    kiln::test::LayerHarness h;
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {2, 3}});
    auto* sum = h.network->addElementWise(*a, *b, ElementWiseOperation::kSUM);
    sum->setName("sum");
    auto* softmax = h.network->addSoftMax(*sum->getOutput(0));
    softmax->setName("softmax");
    h.output(softmax, "y");
    EXPECT_TRUE(h.build());
    return modelOf(*h.plan);
}

int32_t tensorNamed(PlanModel const& model, std::string const& name)
{
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        if (model.tensors[t].name == name)
        {
            return static_cast<int32_t>(t);
        }
    }
    ADD_FAILURE() << "no tensor \"" << name << "\"";
    return 0;
}

kiln::plan::LayerRecord& layerNamed(PlanModel& model, std::string const& name)
{
    for (auto& layer : model.layers)
    {
        if (layer.name == name)
        {
            return layer;
        }
    }
    ADD_FAILURE() << "no layer \"" << name << "\"";
    return model.layers.front();
}

//! The errors of loading `changed` (written with a valid checksum) and making a context; empty where both worked.
std::string loadErrors(PlanModel const& changed)
{
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(changed);
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    EXPECT_EQ(context == nullptr, !logger.errors().empty()) << logger.errors();
    return logger.errors();
}

void expectRefused(PlanModel const& changed, std::string const& reason)
{
    std::string const errors = loadErrors(changed);
    EXPECT_NE(errors.find(reason), std::string::npos) << "expected \"" << reason << "\" in: " << errors;
}

TEST(PlanDataflow, TheUnchangedPlanLoads)
{
    EXPECT_EQ(loadErrors(sumPlan()), "");
}

TEST(PlanDataflow, AnIoTensorListedTwice)
{
    // The fuzzer's find: b's entry replaced by a's, so a kernel read b, which then had no memory.
    PlanModel model = sumPlan();
    int32_t const a = tensorNamed(model, "a");
    for (int32_t& io : model.ioTensors)
    {
        io = model.tensors[io].name == "b" ? a : io;
    }
    expectRefused(model, "tensor \"a\" is listed twice among the I/O tensors");
}

TEST(PlanDataflow, AnIoTensorMarkedButNotListed)
{
    PlanModel model = sumPlan();
    int32_t const y = tensorNamed(model, "y");
    std::erase(model.ioTensors, y);
    expectRefused(model, "tensor \"y\" is marked as I/O but not listed");
}

TEST(PlanDataflow, ALayerReadingATensorNothingWrites)
{
    PlanModel model = sumPlan();
    kiln::plan::TensorRecord orphan = model.tensors[tensorNamed(model, "a")];
    orphan.name = "orphan";
    orphan.ioMode = TensorIOMode::kNONE;
    model.tensors.push_back(orphan);
    layerNamed(model, "sum").inputs[1] = static_cast<int32_t>(model.tensors.size() - 1);
    expectRefused(model, "layer \"sum\" reads tensor \"orphan\", which no network input or earlier layer provides");
}

TEST(PlanDataflow, LayersInAnOrderThatReadsBeforeWriting)
{
    PlanModel model = sumPlan();
    std::swap(model.layers.front(), model.layers.back());
    expectRefused(model, "which no network input or earlier layer provides");
}

TEST(PlanDataflow, ALayerWritingANetworkInput)
{
    PlanModel model = sumPlan();
    layerNamed(model, "softmax").outputs[0] = tensorNamed(model, "b");
    expectRefused(model, "layer \"softmax\" writes tensor \"b\", which a network input or an earlier layer already");
}

TEST(PlanDataflow, ANetworkOutputNoLayerWrites)
{
    PlanModel model = sumPlan();
    int32_t const y = tensorNamed(model, "y");
    kiln::plan::TensorRecord spare = model.tensors[y];
    spare.name = "spare";
    spare.ioMode = TensorIOMode::kNONE;
    model.tensors.push_back(spare);
    layerNamed(model, "softmax").outputs[0] = static_cast<int32_t>(model.tensors.size() - 1);
    expectRefused(model, "network output \"y\" is written by no layer");
}

TEST(PlanDataflow, ProfilesOutsideTheirInputsShapes)
{
    PlanModel fixed = sumPlan();
    ASSERT_FALSE(fixed.profiles.empty());
    fixed.profiles[0].inputs[0][0].d[1] = 5; // a's extent 3 is fixed
    expectRefused(fixed, "optimization profile 0 bounds input \"a\" outside its shape");

    PlanModel ranks = sumPlan();
    ranks.profiles[0].inputs[1][2].nbDims = 1;
    expectRefused(ranks, "optimization profile 0 bounds input \"b\" outside its shape");

    PlanModel negative = sumPlan();
    negative.profiles[0].inputs[0][0].d[0] = -4;
    expectRefused(negative, "outside its shape");
}

TEST(PlanDataflow, ATensorLeftWithoutMemory)
{
    // Between the two layers: the memory plan gave it an offset; without one, the sum would write to nowhere.
    PlanModel model = sumPlan();
    int32_t const between = layerNamed(model, "sum").outputs[0];
    ASSERT_GE(model.tensors[between].arenaOffset, 0);
    model.tensors[between].arenaOffset = -1;
    std::string const name = model.tensors[between].name;
    expectRefused(model, "layer \"sum\" writes tensor \"" + name + "\", to which the plan gives no memory");
}

//! The errors of running `changed` with [2, 3] inputs a and b (a's address null where `nullA`) and an output y.
std::string runErrors(PlanModel const& changed, bool nullA = false)
{
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(changed);
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    if (context == nullptr)
    {
        ADD_FAILURE() << "the plan was refused before a run: " << logger.errors();
        return logger.errors();
    }
    std::vector<float> a(6, 1.0F);
    std::vector<float> b(6, 2.0F);
    std::vector<float> y(6, 0.0F);
    context->setTensorAddress("a", nullA ? nullptr : a.data());
    context->setTensorAddress("b", b.data());
    context->setTensorAddress("y", y.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    return logger.errors();
}

TEST(PlanDataflow, ATensorPlannedEmptyThatHoldsElements)
{
    // The sum's output given no memory and a planned size of 0 bytes: the context may be made (a tensor that never
    // holds an element needs none), but its [2, 3] shape at run time holds six, which the sum would write to nowhere.
    PlanModel model = sumPlan();
    int32_t const between = layerNamed(model, "sum").outputs[0];
    model.tensors[between].arenaOffset = -1;
    model.tensors[between].maxBytes = 0;
    std::string const errors = runErrors(model);
    std::string const expected
        = "\"" + model.tensors[between].name + "\" would have shape (2, 3), but the plan gives it no memory";
    EXPECT_NE(errors.find(expected), std::string::npos) << errors;
}

TEST(PlanDataflow, AnInputPlannedEmptyGivenANullAddress)
{
    // a's planned size changed to 0 bytes lets the application give it a null address, as TensorRT lets it for a tensor
    // of no elements; at [2, 3] it holds six, which the sum would read from nowhere.
    PlanModel model = sumPlan();
    model.tensors[tensorNamed(model, "a")].maxBytes = 0;
    std::string const errors = runErrors(model, true);
    EXPECT_NE(errors.find("the address of \"a\" is null, but it holds 6 elements"), std::string::npos) << errors;
}

TEST(PlanDataflow, AConditionalOutputOfAnotherShapeThanItsBranches)
{
    // x [n] -> (x + x) or (x * x) -> y [n], with y recorded as [8]: the taken branch holds n elements, and copying
    // 8 of them read past its end. Both shapes are known only at run time, so the run refuses it.
    kiln::test::LayerHarness h;
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    h.setProfile("x", Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
    IIfConditional* conditional = h.network->addIfConditional();
    conditional->setCondition(*condition);
    ITensor* sum = h.network->addElementWise(*x, *x, ElementWiseOperation::kSUM)->getOutput(0);
    ITensor* product = h.network->addElementWise(*x, *x, ElementWiseOperation::kPROD)->getOutput(0);
    h.output(conditional->addOutput(*sum, *product), "y");
    ASSERT_TRUE(h.build());
    PlanModel model = modelOf(*h.plan);
    int32_t const y = tensorNamed(model, "y");
    model.tensors[y].dims[0] = kiln::plan::constantNode(model, 8);

    std::vector<uint8_t> const bytes = kiln::plan::writePlan(model);
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    bool taken = true;
    std::vector<float> const values{1.0F, 2.0F, 3.0F};
    std::vector<float> out(8, 0.0F);
    ASSERT_TRUE(context->setInputShape("x", Dims{1, {3}}));
    context->setTensorAddress("cond", &taken);
    context->setTensorAddress("x", const_cast<float*>(values.data()));
    context->setTensorAddress("y", out.data());
    EXPECT_FALSE(context->enqueueV3(nullptr));
    EXPECT_NE(logger.errors().find("has another shape than the output"), std::string::npos) << logger.errors();
}

//! The plan of x [8] -> PositiveSelect (FP32 in; FP32 values and an INT32 count out), read back.
PlanModel positiveSelectPlan()
{
    kiln::test::PositiveSelectCreator::registerOnce();
    kiln::test::LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {8}});
    kiln::test::PositiveSelectPlugin plugin;
    IPluginV3Layer* layer = h.network->addPluginV3(&x, 1, nullptr, 0, plugin);
    h.output(layer, "values", 0);
    h.output(layer, "count", 1);
    EXPECT_TRUE(h.build());
    return h.plan ? modelOf(*h.plan) : PlanModel{};
}

TEST(PlanDataflow, APluginGivenTypesItDoesNotAccept)
{
    // x [8] -> PositiveSelect (FP32 in; FP32 values and an INT32 count out); its output recorded as BF16, the fuzzer's
    // ScatterND find, would have it write four-byte elements into two-byte ones.
    PlanModel model = positiveSelectPlan();
    ASSERT_EQ(loadErrors(model), "");
    for (auto& record : model.layers)
    {
        if (auto* params = dynamic_cast<kiln::network::PluginParams const*>(record.params.get()))
        {
            auto changed = std::make_shared<kiln::network::PluginParams>(*params);
            changed->ioTypes[1] = DataType::kBF16;
            record.params = changed;
        }
    }
    expectRefused(model, "does not accept BF16 for its output 0, the type the plan records");
}

TEST(PlanDataflow, APluginLayerWithAnAbsentInput)
{
    // The fuzzer's MultilevelProposeROI_TRT find: a plugin's input replaced by an absent one (-1, as an optional input
    // of a built-in layer is recorded), which the plugin read from a null address.
    PlanModel model = positiveSelectPlan();
    ASSERT_EQ(loadErrors(model), "");
    for (auto& record : model.layers)
    {
        if (dynamic_cast<kiln::network::PluginParams const*>(record.params.get()) != nullptr)
        {
            record.inputs[0] = -1;
        }
    }
    expectRefused(model, ": its input 0 is absent, which a plugin layer's inputs never are");
}

TEST(PlanDataflow, APluginOutputAliasedToAnInputItLacks)
{
    // PositiveSelect has one input: an alias to input 1, or an alias list that does not match the two outputs, must
    // be refused as the plan is read, before a run copies from memory that is not there.
    kiln::test::PositiveSelectCreator::registerOnce();
    kiln::test::LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {8}});
    kiln::test::PositiveSelectPlugin plugin;
    IPluginV3Layer* layer = h.network->addPluginV3(&x, 1, nullptr, 0, plugin);
    h.output(layer, "values", 0);
    h.output(layer, "count", 1);
    ASSERT_TRUE(h.build());
    PlanModel const built = modelOf(*h.plan);
    for (auto const& [aliases, expected] : std::vector<std::pair<std::vector<int32_t>, std::string>>{
             {{1, -1}, "a plugin output is aliased to input 1 of 1"},
             {{0}, "the plugin layer's aliased outputs do not match its outputs"}})
    {
        PlanModel model = built;
        for (auto& record : model.layers)
        {
            if (auto* params = dynamic_cast<kiln::network::PluginParams const*>(record.params.get()))
            {
                auto changed = std::make_shared<kiln::network::PluginParams>(*params);
                changed->aliasedInputs = aliases;
                record.params = changed;
            }
        }
        expectRefused(model, expected);
    }
}

} // namespace
